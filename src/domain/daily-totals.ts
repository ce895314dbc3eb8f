/**
 * The dashboard's daily totals (docs/dashboard.md#daily-totals): per merchant, UTC day and currency, what the overview
 * sums instead of scanning invoices. Pure: which rows a status change or a succeeded refund moves, and by how much.
 *
 * Two kinds of figures share a row. By the day the invoice was CREATED (its cohort): how many of that day's invoices
 * are now `hold`, `paid`, `failed`, `expired` — `pending` is the rest of the day's created count, which create never
 * writes (it is counted from the invoices' index). By the day it HAPPENED: payments (count, amount, credited) on their
 * paid day, succeeded refunds on the day they succeeded.
 */
import type { MerchantId } from './ids.js'
import type { Invoice, Status } from './invoice.js'
import type { Minor } from './money.js'

export const DAY_MS = 86_400_000

/**
 * A day's created count is kept once the day ended this long ago: a create that read the clock before midnight has
 * committed by then, and none can be added to the day after.
 */
export const CLOSE_GRACE_MS = 10 * 60_000

/** The UTC day (days since 1970-01-01) of an instant. */
export function dayOf(at: Date | number): number {
  return Math.floor((typeof at === 'number' ? at : at.getTime()) / DAY_MS)
}

export function dayStart(day: number): Date {
  return new Date(day * DAY_MS)
}

/** The last day whose created count can no longer change at `now` (ended at least CLOSE_GRACE_MS ago). */
export function lastClosedDay(now: Date): number {
  return dayOf(now.getTime() - CLOSE_GRACE_MS) - 1
}

/** The statuses counted per created day; `pending` is what remains of the day's created count. */
export const COUNTED_STATUSES = ['hold', 'paid', 'failed', 'expired'] as const
export type CountedStatus = (typeof COUNTED_STATUSES)[number]

export interface DailyTotals {
  readonly day: number
  readonly currency: string
  /** Of the invoices created this day: how many are in each status now. */
  readonly hold: number
  readonly paid: number
  readonly failed: number
  readonly expired: number
  /** Payments made this day (by paid_at): how many, their amount and what was credited to the merchant. */
  readonly paidCount: number
  readonly paidAmount: Minor
  readonly creditedAmount: Minor
  /** Refunds that succeeded this day. */
  readonly refundedAmount: Minor
}

/** A change to add to one row (merchant, day, currency); absent fields add nothing. */
export interface TotalsDelta {
  readonly merchantId: MerchantId
  readonly day: number
  readonly currency: string
  readonly add: Partial<Omit<DailyTotals, 'day' | 'currency'>>
}

/** What moving `after` from status `before` changes; none when the status stays. */
export function statusChangeDeltas(before: Status, after: Invoice): TotalsDelta[] {
  if (before === after.status) return []
  const cohort: Record<string, number> = {}
  if (before !== 'pending') cohort[before] = -1
  if (after.status !== 'pending') cohort[after.status] = (cohort[after.status] ?? 0) + 1
  const key = { merchantId: after.merchantId, currency: after.currency }
  const deltas: TotalsDelta[] = [{ ...key, day: dayOf(after.createdAt), add: cohort }]
  if (after.status === 'paid') {
    deltas.push({
      ...key,
      day: dayOf(after.paidAt ?? after.updatedAt),
      add: {
        paidCount: 1,
        paidAmount: after.amount,
        creditedAmount: (after.credited ?? after.amount) as Minor,
      },
    })
  }
  return deltas
}

/**
 * A refund that succeeded: its amount on the day it did (`updatedAt`, when it succeeded). `sign` -1 takes it off
 * that day again: a succeeded refund its acquirer failed afterwards (docs/refunds.md#statuses) no longer counts.
 */
export function refundDeltas(
  refund: {
    readonly merchantId: MerchantId
    readonly currency: string
    readonly amount: Minor
    readonly updatedAt: Date
  },
  sign: 1 | -1 = 1,
): TotalsDelta[] {
  return [
    {
      merchantId: refund.merchantId,
      currency: refund.currency,
      day: dayOf(refund.updatedAt),
      add: { refundedAmount: (sign * refund.amount) as Minor },
    },
  ]
}
