import { isoTime } from './iso-time.js'
import type { DeliveryId, EventId, InvoiceId, MerchantId } from './ids.js'
import type { InvoiceEventType } from './invoice.js'
import type { InvoiceView } from './invoice-view.js'

/** Every event type a webhook can carry: the invoice's transitions, and the merchant's own test (docs/webhooks.md#events, docs/webhooks.md#test-events). */
export type WebhookEventType = InvoiceEventType | 'webhook.test'

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/**
 * One event on its way to one callback_url: a durable row, not a sleeping promise (docs/architecture.md#retries-are-rows-not-sleeps,
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
 * docs/webhooks.md#events: `{"type", "timestamp", "data"}` with `data` the invoice exactly as getInfo returned it at the
 * time of the event. Serialized once, when the event is written, so retries and redeliveries send the same
 * bytes under the same webhook-id.
 */
export function webhookPayload(
  type: WebhookEventType,
  at: Date,
  data: InvoiceView | Readonly<Record<string, unknown>>,
): string {
  return JSON.stringify({ type, timestamp: isoTime(at), data })
}

/**
 * How much a dispatcher's claim may take: its free slots, shared fairly between merchants. Without a share, one
 * merchant whose endpoint never answers fills every slot with attempts that each wait out WEBHOOK_TIMEOUT, and
 * every other merchant's webhooks wait behind them. With it, a merchant whose endpoint answers (its last attempt
 * here succeeded) may always have `perMerchant` in flight (WEBHOOK_MERCHANT_CONCURRENCY); one that has not
 * answered here yet, or whose last attempt failed, `perUnproven` (a quarter of it: `unprovenShare`), so it takes
 * many merchants whose endpoints hang to fill the slots. Beyond its share, an answering merchant uses free slots
 * while `perMerchant` of them stay free for the next merchant (`takeBeyondShare`), so a merchant alone still uses
 * most of the slots, and one whose endpoint stopped answering soon holds only the unproven share.
 */
export interface ClaimShare {
  /** The free slots: the most deliveries to claim. */
  readonly limit: number
  /** Deliveries in flight at once that an answering merchant always may have; also the slots kept free beyond it. */
  readonly perMerchant: number
  /** The same for a merchant not answering: none of its attempts here yet, or the last one failed (1 … perMerchant). */
  readonly perUnproven: number
  /** This dispatcher's deliveries in flight now, by merchant. */
  readonly inFlight: ReadonlyMap<MerchantId, number>
  /** The answering merchants: those whose last attempt on this dispatcher succeeded. */
  readonly answering: ReadonlySet<MerchantId>
}

/** The share of a merchant whose endpoint has not answered here yet, or whose last attempt failed: a quarter. */
export function unprovenShare(perMerchant: number): number {
  return Math.ceil(perMerchant / 4)
}

/** How many deliveries the merchant may always have in flight: its share. */
export function shareOf(share: ClaimShare, merchantId: MerchantId): number {
  return share.answering.has(merchantId) ? share.perMerchant : Math.min(share.perUnproven, share.perMerchant)
}

/** Deliveries in flight by merchant once `taken` are, too. */
function heldWith(share: ClaimShare, taken: readonly { readonly merchantId: MerchantId }[]): Map<MerchantId, number> {
  const held = new Map(share.inFlight)
  for (const d of taken) held.set(d.merchantId, (held.get(d.merchantId) ?? 0) + 1)
  return held
}

/**
 * The first pass of a claim: from due deliveries, oldest due first, the ones within their merchant's share, in
 * the same order, at most `limit`.
 */
export function takeFairShare<T extends { readonly merchantId: MerchantId }>(
  due: readonly T[],
  share: ClaimShare,
): T[] {
  const held = heldWith(share, [])
  const taken: T[] = []
  for (const d of due) {
    if (taken.length >= share.limit) break
    const n = held.get(d.merchantId) ?? 0
    if (n >= shareOf(share, d.merchantId)) continue
    held.set(d.merchantId, n + 1)
    taken.push(d)
  }
  return taken
}

/**
 * How many of the oldest candidates (each merchant's first `min(perMerchant, limit)` due, but none of merchants
 * at their share) are enough for `takeFairShare` to find its `limit`. It passes over a merchant's candidates only
 * once the merchant reaches its share: of one with some in flight, at most the candidates beyond what its share
 * leaves it; of one with none in flight, only an unproven one's beyond its `perUnproven`, and while fewer than
 * `limit` are taken, at most `floor((limit - 1) / perUnproven)` merchants have taken that many.
 */
export function fairShareCandidates(share: ClaimShare): number {
  const seek = Math.min(share.perMerchant, share.limit)
  let passed = 0
  for (const [m, n] of share.inFlight) passed += Math.max(0, seek - Math.max(0, shareOf(share, m) - n))
  const unproven = Math.min(share.perUnproven, share.perMerchant)
  if (unproven < seek) passed += Math.floor((share.limit - 1) / unproven) * (seek - unproven)
  return share.limit + passed
}

/**
 * The second pass: from due deliveries, oldest due first whatever their merchant, those the claim takes after
 * `taken` beyond the merchants' shares — only of answering merchants, and only the free slots left above a reserve
 * of `perMerchant`, kept for merchants whose deliveries come due next. None unless some merchant is at its share:
 * only then may more be due than the first pass found.
 */
export function takeBeyondShare<T extends { readonly id: string; readonly merchantId: MerchantId }>(
  due: readonly T[],
  share: ClaimShare,
  taken: readonly T[],
): T[] {
  const held = heldWith(share, taken)
  let atShare = false
  for (const [m, n] of held) if (n >= shareOf(share, m)) atShare = true
  const room = atShare ? share.limit - taken.length - share.perMerchant : 0
  if (room <= 0) return []
  const ids = new Set(taken.map((d) => d.id))
  return due.filter((d) => !ids.has(d.id) && share.answering.has(d.merchantId)).slice(0, room)
}
