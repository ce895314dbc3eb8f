import type { Minor } from './money.js'
import type { EventId, InvoiceId, MerchantId } from './ids.js'

export const STATUSES = ['pending', 'hold', 'paid', 'failed', 'expired'] as const
export type Status = (typeof STATUSES)[number]

/** Statuses that hold an order_id: at most one invoice per (merchant, order_id) is in one of these (docs/api.md#idempotency). */
export const LIVE_STATUSES = ['pending', 'hold', 'paid'] as const satisfies readonly Status[]
export const FINAL_STATUSES = ['paid', 'failed', 'expired'] as const satisfies readonly Status[]

/** docs/api.md#statuses: every allowed transition; anything else is refused. */
const NEXT: Readonly<Record<Status, readonly Status[]>> = {
  pending: ['hold', 'paid', 'failed', 'expired'],
  hold: ['paid', 'failed'],
  paid: [],
  failed: [],
  expired: [],
}

export interface Invoice {
  readonly id: InvoiceId
  readonly merchantId: MerchantId
  readonly orderId: string
  readonly amount: Minor
  readonly currency: string
  readonly status: Status
  readonly service: string
  readonly comment: string | null
  readonly callbackUrl: string | null
  readonly successUrl: string | null
  readonly failUrl: string | null
  /** The payment page link (seed `url`, create's `pay_url`). */
  readonly payUrl: string
  /** What the QR code encodes; set by the payment provider. */
  readonly qrData: string
  readonly credited: Minor | null
  /**
   * The service's fee on this invoice, fixed when it was created (docs/api.md#fees-and-credited: credited = amount − fee). Null on an
   * invoice created before the fee was kept with it; its fee is the one configured when it is paid.
   */
  readonly fee: Minor | null
  readonly expiresAt: Date
  readonly paidAt: Date | null
  readonly heldAt: Date | null
  readonly createdAt: Date
  /**
   * The invoice's last change: the clock's time, but always later than the change before it (see `transition`),
   * so this invoice's changes, and the webhooks they cause, keep their order when clocks differ between instances.
   */
  readonly updatedAt: Date
  /**
   * When a payment sent before `expired_at` was first seen, while it waits for its confirmations (an `evm` deposit:
   * docs/stablecoins.md#states): such an invoice does not expire until the payment is final or undone. Absent
   * otherwise.
   */
  readonly paymentSeenAt?: Date
}

export type InvoiceEventType =
  | 'invoice.hold'
  | 'invoice.paid'
  | 'invoice.failed'
  | 'invoice.expired'
  /** Money arrived for an invoice that could no longer take it, and was voided or refunded (docs/providers.md#late-payments). */
  | 'invoice.late_payment'
  /** A refund of the paid invoice completed, or the acquirer refused it (docs/refunds.md#events); the status stays paid. */
  | 'refund.succeeded'
  | 'refund.failed'

/** An outbox event: written in the same transaction as the transition that caused it (docs/api.md#statuses, docs/webhooks.md#delivery). */
export interface InvoiceEvent {
  readonly id: EventId
  readonly invoiceId: InvoiceId
  readonly merchantId: MerchantId
  readonly type: InvoiceEventType
  readonly createdAt: Date
}

export function isLive(status: Status): boolean {
  return status === 'pending' || status === 'hold' || status === 'paid'
}

export function isFinal(status: Status): boolean {
  return status === 'paid' || status === 'failed' || status === 'expired'
}

export function canTransition(from: Status, to: Status): boolean {
  return NEXT[from].includes(to)
}

/**
 * docs/api.md#getinfo: a pending invoice past expired_at is never reported as pending — except while a payment sent
 * before expired_at confirms (docs/stablecoins.md#states).
 */
export function readStatus(inv: Pick<Invoice, 'status' | 'expiresAt' | 'paymentSeenAt'>, now: Date): Status {
  return inv.status === 'pending' && inv.paymentSeenAt === undefined && now.getTime() >= inv.expiresAt.getTime()
    ? 'expired'
    : inv.status
}

/**
 * docs/api.md#statuses: a hold not settled within the hold lifetime is cancelled. From this instant on the merchant can no longer
 * capture it (its authorisation has lapsed; the sweeper releases it and fails it), as a pending invoice past
 * `expired_at` can no longer be paid before any sweep. The provider settling it itself still counts: it is the
 * acquirer that holds the money. The instant the hold lapsed, when it has by `now`; else undefined (also for an
 * invoice that is not a hold).
 */
export function holdLapsedAt(
  inv: Pick<Invoice, 'status' | 'heldAt'>,
  now: Date,
  holdLifetimeMs: number,
): Date | undefined {
  if (inv.status !== 'hold' || inv.heldAt === null) return undefined
  const lapse = inv.heldAt.getTime() + holdLifetimeMs
  return now.getTime() >= lapse ? new Date(lapse) : undefined
}

export type TransitionResult =
  | { readonly ok: true; readonly invoice: Invoice; readonly event: InvoiceEvent }
  | { readonly ok: false; readonly code: 'invalid_transition'; readonly from: Status }

export interface TransitionInput {
  readonly to: Exclude<Status, 'pending'>
  readonly now: Date
  readonly eventId: EventId
  /** Amount credited to the merchant; required when `to` is `paid`. */
  readonly credited?: Minor
}

/**
 * The status machine as a pure function: the next invoice and the event it causes, or a refusal.
 * A pending invoice already past expiry can only become `expired` (it reads as expired).
 */
export function transition(inv: Invoice, input: TransitionInput): TransitionResult {
  const from = readStatus(inv, input.now)
  // Expiry happens at expired_at, not before; past it, a pending invoice can only become expired.
  const allowed =
    input.to === 'expired'
      ? from === 'expired' && inv.status === 'pending'
      : from !== 'expired' && canTransition(from, input.to)
  if (!allowed) return { ok: false, code: 'invalid_transition', from }
  const to = input.to
  // The clock may read earlier than the previous change: an instance whose clock lags the one that made it, or a
  // transition decided on a reading taken before a racing one committed (apply-transition.ts reads the clock once,
  // then retries). updatedAt is later than the previous change all the same: the webhook order key is this time
  // (record-event.ts), and it must grow with every change. The times the merchant sees — paid_at, held_at, the
  // event's — are the clock's, but never before the previous change (a paid_at earlier than held_at, an
  // invoice.paid timestamped before its invoice.hold, would tell the wrong order).
  const prev = inv.updatedAt.getTime()
  const { updatedAt, seen } = changeTimes(inv, input.now)
  const invoice: Invoice = {
    ...inv,
    status: to,
    updatedAt,
    paidAt: to === 'paid' ? seen : inv.paidAt,
    heldAt: to === 'hold' ? seen : inv.heldAt,
    credited: to === 'paid' ? (input.credited ?? inv.amount) : inv.credited,
  }
  const event: InvoiceEvent = {
    id: input.eventId,
    invoiceId: inv.id,
    merchantId: inv.merchantId,
    type: `invoice.${to}`,
    // An invoice expires at expired_at (docs/api.md#getinfo: it reads expired from then on), however late the sweep that
    // records it runs — a second later, or after the service was down for an hour.
    createdAt: to === 'expired' ? new Date(Math.max(inv.expiresAt.getTime(), prev)) : seen,
  }
  return { ok: true, invoice, event }
}

/**
 * An event about an invoice that does not change its status (docs/providers.md#late-payments): the invoice's
 * updatedAt still moves past its previous change, as in `transition`, so the event's webhook keeps its place in the
 * invoice's order.
 */
export function touchWithEvent(
  inv: Invoice,
  type: InvoiceEventType,
  now: Date,
  eventId: EventId,
): { readonly invoice: Invoice; readonly event: InvoiceEvent } {
  const { updatedAt, seen } = changeTimes(inv, now)
  return {
    invoice: { ...inv, updatedAt },
    event: { id: eventId, invoiceId: inv.id, merchantId: inv.merchantId, type, createdAt: seen },
  }
}

/**
 * The times of a change to `inv` read at `now` (see `transition`): `updatedAt` strictly after the previous change
 * (the webhook order key), and `seen`, the clock's time but never before the previous change (what the merchant is
 * shown: paid_at, held_at, the event's timestamp).
 */
function changeTimes(inv: Invoice, now: Date): { readonly updatedAt: Date; readonly seen: Date } {
  const prev = inv.updatedAt.getTime()
  return {
    updatedAt: new Date(Math.max(now.getTime(), prev + 1)),
    seen: now.getTime() >= prev ? now : inv.updatedAt,
  }
}
