import { validationFailed, type FieldError } from '../domain/errors.js'
import { STATUSES, type Invoice, type Status } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { pageOf, parseCursor, parseLimit, parseOneOf } from './pagination.js'

export interface ListInvoicesQuery {
  readonly status?: string | undefined
  readonly createdFrom?: string | undefined
  readonly createdTo?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
}

/**
 * GET /api/v1/invoices: the merchant's invoices, newest first, with an opaque cursor to the next page. `asOf` is the
 * instant the status filter read them at: shown at a later one, an invoice listed as pending could read expired.
 */
export async function listInvoices(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  merchant: Merchant,
  query: ListInvoicesQuery,
): Promise<{ invoices: Invoice[]; nextCursor: string | null; asOf: Date }> {
  const errors: FieldError[] = []
  const status = parseOneOf<Status>('status', query.status, STATUSES, errors)
  const createdFrom = parseTime('created_from', query.createdFrom, errors)
  const createdTo = parseTime('created_to', query.createdTo, errors)
  const limit = parseLimit(query.limit, errors)
  const after = parseCursor(query.cursor, errors)
  if (errors.length > 0) throw validationFailed(errors)

  const asOf = deps.clock.now()
  const rows = await deps.store.invoices.list({
    merchantId: merchant.id,
    limit: limit + 1,
    now: asOf,
    ...(status !== undefined && { status }),
    ...(createdFrom !== undefined && { createdFrom }),
    ...(createdTo !== undefined && { createdTo }),
    ...(after !== undefined && { after }),
  })
  const { page, nextCursor } = pageOf(rows, limit)
  return { invoices: page, nextCursor, asOf }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i

/**
 * A bound in whole milliseconds, as created_at is kept. Date.parse drops digits past the millisecond; a bound
 * between two milliseconds is rounded up instead, which keeps both meanings: `created_at >= 10.5465 s` is
 * `>= 10.547 s` (from, inclusive), and `created_at < 10.5465 s` is `< 10.547 s` (to, exclusive).
 */
function parseTime(field: string, text: string | undefined, errors: FieldError[]): Date | undefined {
  if (text === undefined) return undefined
  const match = RFC3339.exec(text)
  const ms = match === null ? Number.NaN : Date.parse(text)
  if (match === null || Number.isNaN(ms)) {
    errors.push({ field, message: 'must be an RFC 3339 timestamp such as 2026-11-22T03:07:20.123Z' })
    return undefined
  }
  const belowMs = (match[1] ?? '').slice(4) // the fraction's digits past the third
  return new Date(/[1-9]/.test(belowMs) ? ms + 1 : ms)
}
