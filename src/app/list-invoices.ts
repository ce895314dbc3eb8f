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

/** GET /api/v1/invoices: the merchant's invoices, newest first, with an opaque cursor to the next page. */
export async function listInvoices(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  merchant: Merchant,
  query: ListInvoicesQuery,
): Promise<{ invoices: Invoice[]; nextCursor: string | null }> {
  const errors: FieldError[] = []
  const status = parseOneOf<Status>('status', query.status, STATUSES, errors)
  const createdFrom = parseTime('created_from', query.createdFrom, errors)
  const createdTo = parseTime('created_to', query.createdTo, errors)
  const limit = parseLimit(query.limit, errors)
  const after = parseCursor(query.cursor, errors)
  if (errors.length > 0) throw validationFailed(errors)

  const rows = await deps.store.invoices.list({
    merchantId: merchant.id,
    limit: limit + 1,
    now: deps.clock.now(),
    ...(status !== undefined && { status }),
    ...(createdFrom !== undefined && { createdFrom }),
    ...(createdTo !== undefined && { createdTo }),
    ...(after !== undefined && { after }),
  })
  const { page, nextCursor } = pageOf(rows, limit)
  return { invoices: page, nextCursor }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i

function parseTime(field: string, text: string | undefined, errors: FieldError[]): Date | undefined {
  if (text === undefined) return undefined
  const ms = RFC3339.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(ms)) {
    errors.push({ field, message: 'must be an RFC 3339 timestamp such as 2026-11-22T03:07:20.123Z' })
    return undefined
  }
  return new Date(ms)
}
