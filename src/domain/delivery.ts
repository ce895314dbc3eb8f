import { isoTime } from './iso-time.js'
import type { DeliveryId, EventId, InvoiceId, MerchantId } from './ids.js'
import type { InvoiceEventType } from './invoice.js'
import type { InvoiceView } from './invoice-view.js'

/** Every event type a webhook can carry: the invoice's transitions, and the merchant's own test (API.md B6, C). */
export type WebhookEventType = InvoiceEventType | 'webhook.test'

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/**
 * One event on its way to one callback_url: a durable row, not a sleeping promise (ARCHITECTURE.md 3,
 * "retries are rows"). Written in the transaction of the transition that caused the event.
 */
export interface Delivery {
  readonly id: DeliveryId
  /** The outbox event; its id is the `webhook-id` header, stable across retries. */
  readonly eventId: EventId
  readonly invoiceId: InvoiceId
  readonly merchantId: MerchantId
  readonly url: string
  readonly type: WebhookEventType
  readonly status: DeliveryStatus
  /** Attempts made in the current run of the retry schedule (a manual redelivery starts a new run). */
  readonly attemptCount: number
  /** When the next attempt is due; null once the delivery succeeded or failed. */
  readonly nextAttemptAt: Date | null
  /** Equal to the event's time: the deliveries of one invoice are sent in this order. */
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** One HTTP attempt of a delivery, as the delivery log shows it. */
export interface DeliveryAttempt {
  readonly id: string
  readonly at: Date
  /** The answer's status code; null when there was no answer (timeout, refused, network error). */
  readonly statusCode: number | null
  readonly latencyMs: number
  /** Why the attempt did not succeed; null when it did. */
  readonly error: string | null
}

export interface DeliveryWithAttempts extends Delivery {
  /** Oldest first. */
  readonly attempts: readonly DeliveryAttempt[]
}

/** A delivery claimed by one dispatcher until `leaseUntil`, with the exact body to send. */
export interface ClaimedDelivery {
  readonly id: DeliveryId
  readonly eventId: EventId
  readonly invoiceId: InvoiceId
  readonly merchantId: MerchantId
  readonly url: string
  readonly type: WebhookEventType
  readonly attemptCount: number
  readonly leaseUntil: Date
  /** The webhook body, fixed when the event was written: every attempt sends the same bytes. */
  readonly payload: string
}

/**
 * API.md B6: `{"type", "timestamp", "data"}` with `data` the invoice exactly as getInfo returned it at the
 * time of the event. Serialized once, when the event is written, so retries and redeliveries send the same
 * bytes under the same webhook-id.
 */
export function webhookPayload(type: WebhookEventType, at: Date, data: InvoiceView | Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ type, timestamp: isoTime(at), data })
}
