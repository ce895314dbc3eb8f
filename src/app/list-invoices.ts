import { validationFailed, type FieldError } from '../domain/errors.js'
import { STATUSES, type Invoice, type Status } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { Cursor } from '../ports/store.js'
import type { AppDeps } from './deps.js'

export interface ListInvoicesQuery {
  readonly status?: string | undefined
  readonly createdFrom?: string | undefined
  readonly createdTo?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
}

export const DEFAULT_PAGE = 50
export const MAX_PAGE = 200

/** GET /api/v1/invoices: the merchant's invoices, newest first, with an opaque cursor to the next page. */
export async function listInvoices(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  merchant: Merchant,
  query: ListInvoicesQuery,
): Promise<{ invoices: Invoice[]; nextCursor: string | null }> {
  const errors: FieldError[] = []
  let status: Status | undefined
  if (query.status !== undefined) {
    if ((STATUSES as readonly string[]).includes(query.status)) status = query.status as Status
    else errors.push({ field: 'status', message: `must be one of ${STATUSES.join(', ')}` })
  }
  const createdFrom = parseTime('created_from', query.createdFrom, errors)
  const createdTo = parseTime('created_to', query.createdTo, errors)
  let limit = DEFAULT_PAGE
  if (query.limit !== undefined) {
    if (/^[0-9]{1,4}$/.test(query.limit) && Number(query.limit) >= 1 && Number(query.limit) <= MAX_PAGE) limit = Number(query.limit)
    else errors.push({ field: 'limit', message: `must be a whole number from 1 to ${MAX_PAGE}` })
  }
  let after: Cursor | undefined
  if (query.cursor !== undefined) {
    after = decodeCursor(query.cursor)
    if (after === undefined) errors.push({ field: 'cursor', message: 'is not a cursor this service issued' })
  }
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
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const nextCursor = rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null
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

function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.createdAt.getTime()}:${c.id}`, 'utf8').toString('base64url')
}

function decodeCursor(text: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return undefined
  const m = /^(\d{1,15}):([0-9a-f-]{36})$/.exec(Buffer.from(text, 'base64url').toString('utf8'))
  return m ? { createdAt: new Date(Number(m[1])), id: m[2] ?? '' } : undefined
}
