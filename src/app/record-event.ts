import { webhookPayload, type Delivery } from '../domain/delivery.js'
import type { DeliveryId } from '../domain/ids.js'
import type { Invoice, InvoiceEvent } from '../domain/invoice.js'
import { invoiceView } from '../domain/invoice-view.js'
import { firstAttemptDelayMs } from '../domain/webhook-policy.js'
import type { Tx } from '../ports/store.js'
import type { AppDeps } from './deps.js'

export type RecordEventDeps = Pick<AppDeps, 'newId' | 'webhooks'>

/**
 * The transactional outbox (docs/api.md#statuses, docs/webhooks.md#events): appends the event of a transition and, when the invoice has a
 * callback_url, its delivery with the webhook body — the invoice as getInfo reads it at the moment of the
 * event — all in the caller's transaction. A crash can lose neither the transition's webhook nor its order.
 *
 * `invoice` is the invoice as the transition left it. The delivery's order key (docs/webhooks.md#ordering, per-invoice order) is
 * its `updatedAt`, which `transition` makes strictly later than the invoice's previous change, the time of the
 * event it follows, however this clock reads: a transition that read the clock before it waited for the database,
 * or ran on an instance whose clock lags, still sorts after it. Strictly later, not equal: a tie would fall to the
 * delivery ids, which come from the clocks that may lag.
 */
export async function recordEvent(
  tx: Tx,
  deps: RecordEventDeps,
  invoice: Invoice,
  event: InvoiceEvent,
  /** Fields the event adds to the invoice in its webhook's `data` (invoice.late_payment's `late_payment`). */
  extra?: Readonly<Record<string, unknown>>,
): Promise<void> {
  await tx.events.append(event)
  if (invoice.callbackUrl === null) return
  const delivery: Delivery = {
    id: deps.newId() as DeliveryId,
    eventId: event.id,
    invoiceId: invoice.id,
    merchantId: invoice.merchantId,
    url: invoice.callbackUrl,
    type: event.type,
    status: 'pending',
    attemptCount: 0,
    // from when the event is written, not when it happened: an expiry swept after an outage is dated expired_at,
    // and its first attempt still waits the schedule's first delay (nor does it count as overdue since expired_at)
    nextAttemptAt: new Date(invoice.updatedAt.getTime() + firstAttemptDelayMs(deps.webhooks.retrySchedule)),
    createdAt: invoice.updatedAt,
    updatedAt: invoice.updatedAt,
  }
  await tx.deliveries.insert(
    delivery,
    webhookPayload(
      event.type,
      event.createdAt,
      extra === undefined
        ? invoiceView(invoice, event.createdAt)
        : { ...invoiceView(invoice, event.createdAt), ...extra },
    ),
  )
}
