/**
 * The dashboard's daily totals recounted from the invoices and refunds themselves (docs/dashboard.md#daily-totals):
 * what the kept totals must equal, whatever path moved them.
 */
import { expect } from 'vitest'
import { dayOf, type DailyTotals } from '../../src/domain/daily-totals.js'
import type { MerchantId } from '../../src/domain/ids.js'
import type { TestApp } from './build-test-app.js'

type Row = Omit<DailyTotals, 'day' | 'currency'>
const zero = (): Row =>
  ({
    hold: 0,
    paid: 0,
    failed: 0,
    expired: 0,
    paidCount: 0,
    paidAmount: 0,
    creditedAmount: 0,
    refundedAmount: 0,
  }) as Row

function keyed(rows: readonly DailyTotals[]): Record<string, Row> {
  const out: Record<string, Row> = {}
  for (const { day, currency, ...figures } of rows) {
    if (Object.values(figures).every((v) => v === 0)) continue
    out[`${day} ${currency}`] = figures
  }
  return out
}

/** The totals as the invoices and refunds stored now say they must be. */
export async function recount(t: TestApp, merchantId: string): Promise<Record<string, Row>> {
  const invoices = await t.rt.store.invoices.list({
    merchantId: merchantId as MerchantId,
    limit: 100_000,
    now: t.clock.now(),
  })
  const rows = new Map<string, DailyTotals>()
  const row = (day: number, currency: string): Record<keyof Row, number> => {
    const key = `${day} ${currency}`
    const r = rows.get(key) ?? { day, currency, ...zero() }
    rows.set(key, r)
    return r as unknown as Record<keyof Row, number>
  }
  for (const inv of invoices) {
    if (inv.status !== 'pending') row(dayOf(inv.createdAt), inv.currency)[inv.status] += 1
    if (inv.status === 'paid') {
      const r = row(dayOf(inv.paidAt ?? inv.updatedAt), inv.currency)
      r.paidCount += 1
      r.paidAmount += inv.amount
      r.creditedAmount += inv.credited ?? inv.amount
    }
    for (const refund of await t.rt.store.refunds.listByInvoice(inv.id))
      if (refund.status === 'succeeded') row(dayOf(refund.updatedAt), refund.currency).refundedAmount += refund.amount
  }
  return keyed([...rows.values()])
}

/** The totals the store keeps for the merchant. */
export async function kept(t: TestApp, merchantId: string): Promise<Record<string, Row>> {
  return keyed(await t.rt.store.dailyTotals.list(merchantId as MerchantId, 0, 1_000_000))
}

export async function expectTotalsMatch(t: TestApp, merchantId: string): Promise<void> {
  expect(await kept(t, merchantId)).toEqual(await recount(t, merchantId))
}
