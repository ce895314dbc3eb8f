import type { InvoiceId } from './ids.js'
import type { Minor } from './money.js'

/**
 * One checkout at an acquirer for one invoice (docs/providers.md#attempts): made when the buyer presses Pay, with
 * its own idempotency key, so a double click, a reload or two tabs make one acquirer payment. A new attempt may
 * follow one the acquirer ended (declined and cancelled, its session expired) while the invoice is pending.
 *
 * States, in the order they can only move forward:
 * - `starting`: written before the acquirer was asked; the next click asks again with the same key;
 * - `open`: the acquirer made its checkout; the buyer has not finished;
 * - `held`: authorised at the acquirer, waiting for capture or release;
 * - `succeeded` / `canceled` / `ended`: final (captured; voided or cancelled; ended without money).
 */
export const ATTEMPT_STATES = ['starting', 'open', 'held', 'succeeded', 'canceled', 'ended'] as const
export type AttemptState = (typeof ATTEMPT_STATES)[number]

/**
 * What was done with money that arrived for an invoice that could no longer take it (docs/providers.md#late-payments):
 * `void` / `refund` still to be done (the acquirer has not agreed yet), `voided` / `refunded` done and reported.
 */
export type LateAction = 'void' | 'refund' | 'voided' | 'refunded'

export interface PaymentAttempt {
  readonly id: string
  readonly invoiceId: InvoiceId
  /** 1, 2, … per invoice. */
  readonly attempt: number
  readonly provider: string
  readonly checkoutId: string | null
  readonly paymentId: string | null
  readonly redirectUrl: string | null
  readonly state: AttemptState
  /** What the acquirer last said it holds or took, in our minor units. */
  readonly amount: Minor | null
  readonly lateAction: LateAction | null
  /** When reconciliation asks the acquirer next; null: nothing left to ask. */
  readonly nextCheckAt: Date | null
  /** Checks since the last news (notification or a change seen): the reconciliation backoff's step. */
  readonly checks: number
  /** Every write adds one; a write is a compare-and-set on it. */
  readonly version: number
  readonly createdAt: Date
  readonly updatedAt: Date
}

const RANK: Readonly<Record<AttemptState, number>> = {
  starting: 0,
  open: 1,
  held: 2,
  succeeded: 3,
  canceled: 3,
  ended: 3,
}

export function isFinalAttempt(state: AttemptState): boolean {
  return RANK[state] === 3
}

/**
 * Whether an acquirer's word may move an attempt from `from` to `to`: only forward, so a stale or reordered
 * notification never moves it back (a `held` arriving after `succeeded` changes nothing). Final states are final,
 * except that a `canceled` or `ended` word on a payment we saw `open` is taken, and `succeeded` after `held`.
 */
export function canMoveAttempt(from: AttemptState, to: AttemptState): boolean {
  return RANK[to] > RANK[from]
}

/** The idempotency key of an attempt's acquirer payment: stable per (invoice, attempt), never reused. */
export function attemptKey(invoiceId: InvoiceId, attempt: number): string {
  return `${invoiceId}-${attempt}`
}

/**
 * When reconciliation asks about a non-final attempt next (docs/providers.md#reconciliation): `after` seconds after
 * the last news, then doubling per check that brought none, at most `cap` seconds apart.
 */
export function nextCheckDelaySeconds(checks: number, after: number, cap: number): number {
  return Math.min(cap, after * 2 ** Math.min(checks, 20))
}

/** What an acquirer's word on an attempt does (docs/providers.md#status-mapping). */
export interface AttemptDecision {
  /** The attempt's state after it (unchanged when the word is stale or repeated). */
  readonly state: AttemptState
  /** Whether the word moved the attempt: false for a duplicate or a stale, reordered one. */
  readonly moved: boolean
  /** The invoice's transition it causes, if any. */
  readonly invoiceTo: 'hold' | 'paid' | 'failed' | undefined
  /** Money that arrived for an invoice that can no longer take it: void the hold, or refund the capture. */
  readonly late: 'void' | 'refund' | undefined
}

/**
 * The mapping as a pure function. `invoiceStatus` is the invoice's status as it reads now (past expired_at a pending
 * invoice reads expired). Money is taken only by a pending invoice, or by the hold of this very attempt; anywhere
 * else (expired, cancelled, or paid or held by another attempt) it is late, and is given back.
 */
export function decideAttempt(
  attempt: Pick<PaymentAttempt, 'state'>,
  word: AttemptState,
  invoiceStatus: 'pending' | 'hold' | 'paid' | 'failed' | 'expired',
): AttemptDecision {
  const moved = canMoveAttempt(attempt.state, word)
  const state = moved ? word : attempt.state
  const none = { state, moved, invoiceTo: undefined, late: undefined }
  if (!moved) return none
  const heldHere = attempt.state === 'held'
  switch (word) {
    case 'held':
      return invoiceStatus === 'pending' ? { ...none, invoiceTo: 'hold' } : { ...none, late: 'void' }
    case 'succeeded':
      if (invoiceStatus === 'pending' || (invoiceStatus === 'hold' && heldHere)) return { ...none, invoiceTo: 'paid' }
      // the merchant's capture of this very hold paid it already (the acquirer's word races the capture's answer)
      if (invoiceStatus === 'paid' && heldHere) return none
      return { ...none, late: 'refund' }
    case 'canceled':
      // from a hold: released (by the acquirer's hold lifetime too); before one: the attempt ended, the invoice waits
      return heldHere && invoiceStatus === 'hold' ? { ...none, invoiceTo: 'failed' } : none
    default:
      return none
  }
}
