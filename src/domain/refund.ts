import type { InvoiceId, MerchantId } from './ids.js'
import { parseAmountInput, type Minor } from './money.js'
import type { FieldError } from './errors.js'

/**
 * Refunds of a paid invoice (docs/refunds.md): pure rules. A refund is reserved `pending` before its acquirer is
 * asked, and ends `succeeded` or `failed`; only a failed one gives its amount back to what can still be refunded. A
 * succeeded one can still fail when its acquirer says so (Stripe: the buyer's card was closed; the money went back
 * to the merchant's balance there).
 */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const
export type RefundStatus = (typeof REFUND_STATUSES)[number]
export type RefundId = string & { readonly __brand: 'RefundId' }

/** docs/refunds.md#request: a reason is at most this many characters. */
export const MAX_REFUND_REASON = 500

export interface Refund {
  readonly id: RefundId
  readonly invoiceId: InvoiceId
  readonly merchantId: MerchantId
  /** The provider asked to refund (the one that took the payment). */
  readonly provider: string
  readonly amount: Minor
  readonly currency: string
  readonly status: RefundStatus
  readonly reason: string | null
  /** Why the acquirer refused it; null unless failed. */
  readonly failureReason: string | null
  /** The acquirer's refund id, once it answered. */
  readonly providerRefundId: string | null
  /** The merchant's Idempotency-Key. */
  readonly idempotencyKey: string
  /** A hash of the request the key came with (docs/refunds.md#idempotency). */
  readonly requestHash: string
  /** Checks of a pending refund since its last news: the reconciliation backoff's step. */
  readonly checks: number
  /** When reconciliation asks the acquirer next; null once final. */
  readonly nextCheckAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export type RefundEventType = 'refund.succeeded' | 'refund.failed'

/**
 * docs/refunds.md#statuses: `pending` moves to `succeeded` or `failed`; `succeeded` moves only to `failed`, when the
 * acquirer fails a refund it had completed (every word comes from the acquirer about that refund: its answer, its
 * notification, a fetch); `failed` never moves. A stale or repeated word changes nothing.
 */
export function canMoveRefund(from: RefundStatus, to: RefundStatus): boolean {
  return (from === 'pending' && to !== 'pending') || (from === 'succeeded' && to === 'failed')
}

/** What an acquirer said about a refund. */
export interface RefundOutcome {
  readonly status: RefundStatus
  readonly providerRefundId: string | null
  readonly failureReason?: string | null | undefined
}

/**
 * Applies an acquirer's word to a refund: the refund it makes and the event it causes, or nothing when the word is
 * stale or repeats what is known (only a learned refund id moves a pending one without an event).
 */
export function settleRefund(
  refund: Refund,
  outcome: RefundOutcome,
  now: Date,
): { readonly refund: Refund; readonly event: RefundEventType | undefined } | undefined {
  const learned = refund.providerRefundId === null && outcome.providerRefundId !== null
  if (!canMoveRefund(refund.status, outcome.status)) {
    if (!learned || refund.status !== 'pending') return undefined
    return { refund: { ...refund, providerRefundId: outcome.providerRefundId, updatedAt: now }, event: undefined }
  }
  const status = outcome.status as Exclude<RefundStatus, 'pending'>
  return {
    refund: {
      ...refund,
      status,
      providerRefundId: refund.providerRefundId ?? outcome.providerRefundId,
      failureReason: status === 'failed' ? (outcome.failureReason ?? 'the acquirer refused the refund') : null,
      nextCheckAt: null,
      updatedAt: new Date(Math.max(now.getTime(), refund.updatedAt.getTime())),
    },
    event: status === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
  }
}

/** The sum of the refunds that still count against the invoice's amount: every one not failed. */
export function activeRefundTotal(refunds: readonly Pick<Refund, 'amount' | 'status'>[]): Minor {
  return refunds.reduce((sum, r) => (r.status === 'failed' ? sum : sum + r.amount), 0) as Minor
}

/** The sum of the refunds the acquirer completed: the view's `refunded_amount`. */
export function refundedTotal(refunds: readonly Pick<Refund, 'amount' | 'status'>[]): Minor {
  return refunds.reduce((sum, r) => (r.status === 'succeeded' ? sum + r.amount : sum), 0) as Minor
}

/**
 * The amount a new refund takes, in minor units: the requested one, or all that is left when none is asked for.
 * Refused when it would take the refunds that are not failed past the invoice's amount (docs/refunds.md#amounts),
 * and when nothing is left.
 */
export function decideRefundAmount(
  requested: Minor | undefined,
  invoiceAmount: Minor,
  active: Minor,
): { readonly ok: true; readonly amount: Minor } | { readonly ok: false; readonly remaining: Minor } {
  const remaining = Math.max(0, invoiceAmount - active) as Minor
  const amount = requested ?? remaining
  if (amount <= 0 || amount > remaining) return { ok: false, remaining }
  return { ok: true, amount }
}

/** A refund request after the wire schema checked its types. */
export interface RefundRequestInput {
  readonly amount?: number | string | undefined
  /** A JSON number `amount` as the client wrote it. */
  readonly amountText?: string | undefined
  readonly reason?: string | undefined
}

/**
 * docs/refunds.md#request: `amount` under create's rules (a JSON number or a decimal string, at most the currency's
 * decimals, > 0), `reason` at most 500 characters of text. Every bad field at once.
 */
export function validateRefundRequest(
  input: RefundRequestInput,
  currency: string,
  exponent: number,
):
  | { readonly ok: true; readonly amount: Minor | undefined; readonly reason: string | null }
  | { readonly ok: false; readonly errors: FieldError[] } {
  const errors: FieldError[] = []
  let amount: Minor | undefined
  if (input.amount !== undefined) {
    const parsed = parseAmountInput(input.amount, input.amountText, exponent, currency)
    if (parsed.ok) amount = parsed.minor
    else errors.push({ field: 'amount', message: parsed.message })
  }
  const reason = input.reason ?? null
  if (reason !== null) {
    if ([...reason].length > MAX_REFUND_REASON)
      errors.push({ field: 'reason', message: `must be at most ${MAX_REFUND_REASON} characters` })
    else if (reason.includes('\u0000')) errors.push({ field: 'reason', message: 'must not contain the NUL character' })
    else if (/\p{Cs}/u.test(reason))
      errors.push({ field: 'reason', message: 'must be Unicode text: it holds half of a surrogate pair' })
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, amount, reason }
}

/** docs/refunds.md#idempotency: 1–255 printable ASCII characters. */
export function isIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7e]{1,255}$/.test(key)
}

/** The canonical form of a refund request, hashed to tell a replay from another request under the same key. */
export function refundRequestFingerprint(invoiceId: string, amount: Minor | undefined, reason: string | null): string {
  return JSON.stringify(['refund', invoiceId, amount ?? null, reason])
}

/** The acquirer's idempotency key of a refund: one per refund, the same on every retry and reconciliation. */
export function acquirerRefundKey(id: RefundId): string {
  return `refund-${id}`
}
