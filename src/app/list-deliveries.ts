import { DELIVERY_STATUSES, type DeliveryStatus, type DeliveryWithAttempts } from '../domain/delivery.js'
import { validationFailed, type FieldError } from '../domain/errors.js'
import { parseUuid, type InvoiceId } from '../domain/ids.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { pageOf, parseCursor, parseLimit, parseOneOf } from './pagination.js'

export interface ListDeliveriesQuery {
  readonly invoiceId?: string | undefined
  readonly status?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
}

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
  const after = parseCursor(query.cursor, errors)
  if (errors.length > 0) throw validationFailed(errors)

  const rows = await deps.store.deliveries.list({
    merchantId: merchant.id,
    limit: limit + 1,
    ...(invoiceId !== undefined && { invoiceId }),
    ...(status !== undefined && { status }),
    ...(after !== undefined && { after }),
  })
  const { page, nextCursor } = pageOf(rows, limit)
  return { deliveries: page, nextCursor }
}
