import { validationFailed, type FieldError } from '../domain/errors.js'
import { STATUSES, type Invoice, type Status } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import type { InvoiceListQuery } from '../ports/store.js'
import { cursorOf, pageOf, parseCursor, parseLimit, parseOneOf } from './pagination.js'

export interface ListInvoicesQuery {
  readonly status?: string | undefined
  readonly createdFrom?: string | undefined
  readonly createdTo?: string | undefined
  /** The dashboard's further filters (docs/dashboard.md#invoices); the API does not send them. */
  readonly service?: string | undefined
  readonly currency?: string | undefined
  /** An exact invoice id or order_id. */
  readonly q?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
  /** The dashboard's previous page: the rows just newer than this cursor. */
  readonly before?: string | undefined
}

/** The filters of a listing, checked: what the list and the CSV export (./export-invoices.ts) read by. */
export type InvoiceFilters = Pick<
  InvoiceListQuery,
  'status' | 'createdFrom' | 'createdTo' | 'service' | 'currency' | 'search'
>

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** The filters of `query`, each bad one a field error (collected with the caller's). */
export function parseInvoiceFilters(query: ListInvoicesQuery, errors: FieldError[]): InvoiceFilters {
  const status = parseOneOf<Status>('status', query.status, STATUSES, errors)
  const createdFrom = parseTime('created_from', query.createdFrom, errors)
  const createdTo = parseTime('created_to', query.createdTo, errors)
  const { service, currency, q } = query
  if (service !== undefined && !/^[a-z][a-z0-9_-]{0,31}$/.test(service))
    errors.push({ field: 'service', message: 'must be a service name (lowercase letters, digits, - and _)' })
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency))
    errors.push({ field: 'currency', message: 'must be a three-letter currency code such as EUR' })
  if (q !== undefined && (q === '' || [...q].length > 128 || CONTROL.test(q)))
    errors.push({
      field: 'q',
      message: 'must be an invoice id or an order_id: 1 to 128 characters, no control characters',
    })
  return {
    ...(status !== undefined && { status }),
    ...(createdFrom !== undefined && { createdFrom }),
    ...(createdTo !== undefined && { createdTo }),
    ...(service !== undefined && { service }),
    ...(currency !== undefined && { currency }),
    ...(q !== undefined && { search: q }),
  }
}

/**
 * GET /api/v1/invoices and the dashboard's invoices (docs/dashboard.md#invoices): the merchant's invoices, newest
 * first, with an opaque cursor to the next page and, when the page was reached from one, to the previous. `asOf` is
 * the instant the status filter read them at: shown at a later one, an invoice listed as pending could read expired.
 */
export async function listInvoices(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  merchant: Merchant,
  query: ListInvoicesQuery,
): Promise<{ invoices: Invoice[]; nextCursor: string | null; prevCursor: string | null; asOf: Date }> {
  const errors: FieldError[] = []
  const filters = parseInvoiceFilters(query, errors)
  const limit = parseLimit(query.limit, errors)
  const after = parseCursor(query.cursor, errors)
  const before = query.before === undefined ? undefined : parseCursor(query.before, errors, 'before')
  if (after !== undefined && before !== undefined)
    errors.push({ field: 'before', message: 'give cursor or before, not both' })
  if (errors.length > 0) throw validationFailed(errors)

  const asOf = deps.clock.now()
  const rows = await deps.store.invoices.list({
    merchantId: merchant.id,
    limit: limit + 1,
    now: asOf,
    ...filters,
    ...(after !== undefined && { after }),
    ...(before !== undefined && { before }),
  })
  if (before === undefined) {
    const { page, nextCursor } = pageOf(rows, limit)
    const first = page[0]
    // reached from a page before it: that page is there to go back to
    return { invoices: page, nextCursor, prevCursor: after !== undefined && first ? cursorOf(first) : null, asOf }
  }
  // newest first, the row farthest from `before` first: more than `limit` means more newer ones
  const page = rows.slice(rows.length > limit ? 1 : 0)
  const first = page[0]
  const last = page[page.length - 1]
  return {
    invoices: page,
    nextCursor: last ? cursorOf(last) : null,
    prevCursor: rows.length > limit && first ? cursorOf(first) : null,
    asOf,
  }
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
