import { DELIVERY_STATUSES, type DeliveryStatus, type DeliveryWithAttempts } from '../domain/delivery.js'
import { validationFailed, type FieldError } from '../domain/errors.js'
import { parseUuid, type InvoiceId } from '../domain/ids.js'
import type { Merchant } from '../domain/merchant.js'
import type { DeliveryListQuery } from '../ports/store.js'
import type { AppDeps } from './deps.js'
import { pageOf, parseCursor, parseLimit, parseOneOf } from './pagination.js'

export interface ListDeliveriesQuery {
  readonly invoiceId?: string | undefined
  readonly status?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
  /** Failed deliveries first, then the others, each newest first (the dashboard's log); not with `status`. */
  readonly failuresFirst?: boolean
}

/** A failures-first cursor inside the failures, and the one that starts the rest (docs/dashboard.md#webhooks). */
const IN_FAILURES = 'failed.'
const REST_START = 'rest'

/** GET /api/v1/webhooks/deliveries (docs/webhooks.md#delivery-log): the merchant's delivery log, newest first, with each attempt. */
export async function listDeliveries(
  deps: Pick<AppDeps, 'store'>,
  merchant: Merchant,
  query: ListDeliveriesQuery,
): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor: string | null }> {
  const errors: FieldError[] = []
  let invoiceId: InvoiceId | undefined
  if (query.invoiceId !== undefined) {
    invoiceId = parseUuid(query.invoiceId) as InvoiceId | undefined
    if (invoiceId === undefined) errors.push({ field: 'invoice_id', message: 'must be a UUID' })
  }
  const status = parseOneOf<DeliveryStatus>('status', query.status, DELIVERY_STATUSES, errors)
  const limit = parseLimit(query.limit, errors)
  // failures first: two index ranges read one after the other, never a sort of the merchant's whole log
  const failuresFirst = query.failuresFirst === true && status === undefined
  let inFailures = failuresFirst && query.cursor === undefined
  let cursor = query.cursor
  if (failuresFirst && cursor?.startsWith(IN_FAILURES) === true) {
    inFailures = true
    cursor = cursor.slice(IN_FAILURES.length)
  } else if (failuresFirst && cursor === REST_START) cursor = undefined
  const after = parseCursor(cursor, errors)
  if (errors.length > 0) throw validationFailed(errors)

  const scope = { merchantId: merchant.id, ...(invoiceId !== undefined && { invoiceId }) }
  const list = (more: Omit<DeliveryListQuery, 'merchantId' | 'invoiceId'>) =>
    deps.store.deliveries.list({ ...scope, ...more, ...(after !== undefined && { after }) })
  if (!inFailures) {
    const rows = await list({
      limit: limit + 1,
      ...(status !== undefined && { status }),
      ...(failuresFirst && { exceptStatus: 'failed' as const }),
    })
    const { page, nextCursor } = pageOf(rows, limit)
    return { deliveries: page, nextCursor }
  }
  const failed = await list({ status: 'failed', limit: limit + 1 })
  if (failed.length > limit) {
    const { page, nextCursor } = pageOf(failed, limit)
    return { deliveries: page, nextCursor: IN_FAILURES + (nextCursor ?? '') }
  }
  const room = limit - failed.length
  const rest = await deps.store.deliveries.list({ ...scope, exceptStatus: 'failed', limit: room + 1 })
  if (room === 0) return { deliveries: failed, nextCursor: rest.length > 0 ? REST_START : null }
  const { page, nextCursor } = pageOf(rest, room)
  return { deliveries: [...failed, ...page], nextCursor }
}
