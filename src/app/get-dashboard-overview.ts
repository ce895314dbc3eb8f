/**
 * The dashboard's overview (docs/dashboard.md#overview): one merchant's invoices of the last 7, 30 or 90 UTC days
 * (today included), read from the daily totals and two index ranges — never a scan of the invoices
 * (docs/dashboard.md#daily-totals). An ended day's created count is counted once and kept.
 */
import { validationFailed } from '../domain/errors.js'
import { dayOf, dayStart, lastClosedDay } from '../domain/daily-totals.js'
import type { Status } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { Minor } from '../domain/money.js'
import type { AppDeps } from './deps.js'

export const OVERVIEW_WINDOWS = [7, 30, 90] as const
export type OverviewWindow = (typeof OVERVIEW_WINDOWS)[number]
export const DEFAULT_WINDOW: OverviewWindow = 30

export interface CurrencyTotals {
  readonly currency: string
  readonly paidCount: number
  readonly paidAmount: Minor
  readonly creditedAmount: Minor
  readonly refundedAmount: Minor
}

export interface Overview {
  readonly days: OverviewWindow
  /** The window's first and last UTC day (days since 1970-01-01). */
  readonly fromDay: number
  readonly toDay: number
  readonly asOf: Date
  /** Invoices created in the window, and how many of them are in each status now (as they read at asOf). */
  readonly created: number
  readonly byStatus: Readonly<Record<Status, number>>
  /** Paid / created of the window's invoices; null when none was created. */
  readonly conversion: number | null
  /** Per currency (sorted), what happened in the window: payments, credited and refunded amounts. */
  readonly totals: readonly CurrencyTotals[]
  /** Every day of the window, oldest first: the amount paid that day per currency (absent: none). */
  readonly paidByDay: readonly { readonly day: number; readonly amounts: ReadonlyMap<string, Minor> }[]
}

/** `days` from the query: 7, 30 or 90; the default when absent; anything else is 400 validation_failed. */
export function parseWindow(text: string | undefined): OverviewWindow {
  if (text === undefined || text === '') return DEFAULT_WINDOW
  const n = OVERVIEW_WINDOWS.find((w) => String(w) === text)
  if (n === undefined)
    throw validationFailed([{ field: 'days', message: `must be one of ${OVERVIEW_WINDOWS.join(', ')}` }])
  return n
}

export async function getDashboardOverview(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  merchant: Merchant,
  days: OverviewWindow,
): Promise<Overview> {
  const totals = deps.store.dailyTotals
  const asOf = deps.clock.now()
  const toDay = dayOf(asOf)
  const fromDay = toDay - days + 1
  const closedTo = Math.min(lastClosedDay(asOf), toDay)

  const [rows, kept, open, unswept] = await Promise.all([
    totals.list(merchant.id, fromDay, toDay),
    totals.createdByDay(merchant.id, fromDay, closedTo),
    totals.countCreated(merchant.id, dayStart(Math.max(fromDay, closedTo + 1)), dayStart(toDay + 1)),
    totals.countUnsweptExpired(merchant.id, dayStart(fromDay), asOf),
  ])
  // ended days not kept yet (the first visit after they ended): counted once now, then kept
  const missing = new Map<number, number>()
  for (let day = fromDay; day <= closedTo; day += 1) {
    if (!kept.has(day)) missing.set(day, await totals.countCreated(merchant.id, dayStart(day), dayStart(day + 1)))
  }
  if (missing.size > 0) await deps.store.transaction((tx) => tx.dailyTotals.keepCreated(merchant.id, missing))

  let created = open
  for (const n of kept.values()) created += n
  for (const n of missing.values()) created += n

  const counts = { hold: 0, paid: 0, failed: 0, expired: unswept }
  const byCurrency = new Map<
    string,
    { paidCount: number; paidAmount: number; creditedAmount: number; refundedAmount: number }
  >()
  const paid = new Map<number, Map<string, Minor>>()
  for (const r of rows) {
    counts.hold += r.hold
    counts.paid += r.paid
    counts.failed += r.failed
    counts.expired += r.expired
    const c = byCurrency.get(r.currency) ?? { paidCount: 0, paidAmount: 0, creditedAmount: 0, refundedAmount: 0 }
    c.paidCount += r.paidCount
    c.paidAmount += r.paidAmount
    c.creditedAmount += r.creditedAmount
    c.refundedAmount += r.refundedAmount
    byCurrency.set(r.currency, c)
    if (r.paidAmount !== 0) {
      const day = paid.get(r.day) ?? new Map<string, Minor>()
      day.set(r.currency, r.paidAmount)
      paid.set(r.day, day)
    }
  }
  const pending = Math.max(0, created - counts.hold - counts.paid - counts.failed - counts.expired)
  return {
    days,
    fromDay,
    toDay,
    asOf,
    created,
    byStatus: { pending, ...counts },
    conversion: created > 0 ? counts.paid / created : null,
    totals: [...byCurrency]
      .filter(([, c]) => c.paidCount > 0 || c.refundedAmount > 0 || c.creditedAmount > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([currency, c]) => ({
        currency,
        paidCount: c.paidCount,
        paidAmount: c.paidAmount as Minor,
        creditedAmount: c.creditedAmount as Minor,
        refundedAmount: c.refundedAmount as Minor,
      })),
    paidByDay: Array.from({ length: days }, (_, i) => ({
      day: fromDay + i,
      amounts: paid.get(fromDay + i) ?? new Map<string, Minor>(),
    })),
  }
}
