/**
 * The Store contract for refunds (docs/refunds.md#concurrency, docs/refunds.md#idempotency): one refund per
 * (merchant, Idempotency-Key) however the inserts race, compare-and-set on status, reconciliation claims racing for
 * due refunds, and the sandbox's test control taken once.
 *
 * PostgreSQL runs share one schema per file, so the tests never assume an empty table: each first moves whatever an
 * earlier test left due far into the future, and looks only at its own rows.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { InvoiceId, MerchantId } from '../../src/domain/ids.js'
import type { Minor } from '../../src/domain/money.js'
import { dayOf } from '../../src/domain/daily-totals.js'
import type { Refund, RefundId } from '../../src/domain/refund.js'
import type { Store } from '../../src/ports/store.js'
import { at, givenInvoice, givenMerchant, MINUTE, T0, type ContractContext } from './fixtures.js'

const DAY = 24 * 60 * MINUTE
const FAR = new Date('2999-01-01T00:00:00.000Z')
const FARTHER = new Date('3999-01-01T00:00:00.000Z')

function refundFixture(invoiceId: InvoiceId, merchantId: MerchantId, over: Partial<Refund> = {}): Refund {
  return {
    id: randomUUID() as RefundId,
    invoiceId,
    merchantId,
    provider: 'sandbox',
    amount: 100 as Minor,
    currency: 'RUB',
    status: 'pending',
    reason: null,
    failureReason: null,
    providerRefundId: null,
    idempotencyKey: randomUUID(),
    requestHash: 'h',
    checks: 0,
    nextCheckAt: T0,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  }
}

async function settleDue(store: Store): Promise<void> {
  for (;;) {
    const claimed = await store.transaction((tx) => tx.refunds.claimDue(FAR, 100, () => FARTHER))
    if (claimed.length < 100) return
  }
}

export function describeRefundContract(ctx: ContractContext): void {
  describe('refunds', () => {
    it('when two inserts with one Idempotency-Key race, then one is inserted and the other finds the key taken', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      const [a, b] = [
        refundFixture(inv.id, m.id, { idempotencyKey: 'k' }),
        refundFixture(inv.id, m.id, { idempotencyKey: 'k' }),
      ]
      const results = await Promise.all([a, b].map((x) => store.transaction((tx) => tx.refunds.insert(x))))
      expect([...results].sort()).toEqual(['inserted', 'key_exists'])
      const stored = await store.refunds.listByInvoice(inv.id)
      expect(stored).toEqual([results[0] === 'inserted' ? a : b])
      expect(await store.refunds.findByKey(m.id, 'k')).toEqual(stored[0])
      // another merchant's key is its own
      const other = await givenMerchant(store)
      const theirs = await givenInvoice(store, other.id)
      expect(
        await store.transaction((tx) => tx.refunds.insert(refundFixture(theirs.id, other.id, { idempotencyKey: 'k' }))),
      ).toBe('inserted')
    })

    it('when a refund is settled, then only from the status expected, and it is found by its acquirer id', async () => {
      const store = ctx.store()
      const { inv, r, done } = await givenSucceededRefund(store)
      expect(await store.transaction((tx) => tx.refunds.update({ ...done, status: 'failed' }, r))).toBe(false)
      expect(await store.refunds.findById(r.id)).toEqual(done)
      expect(await store.refunds.findByProviderRefundId('sandbox', `re_${r.id}`)).toEqual(done)
      expect(await store.refunds.findByProviderRefundId('stripe', `re_${r.id}`)).toBeUndefined()
      expect(await store.transaction((tx) => tx.refunds.lockInvoice(inv.id))).toMatchObject({
        id: inv.id,
        amount: inv.amount,
      })
    })

    it('when the acquirer fails a succeeded refund on a later day, then the daily totals take it off the day it succeeded', async () => {
      const store = ctx.store()
      const { m, r, done } = await givenSucceededRefund(store)
      const day = dayOf(T0)
      const refunded = async () =>
        (await store.dailyTotals.list(m.id, day, day + 2)).map((t) => [t.day - day, t.refundedAmount])
      expect(await refunded()).toEqual([[0, r.amount]])
      // docs/refunds.md#statuses: failed by the acquirer a day later; no day shows it refunded any more
      const failed: Refund = {
        ...done,
        status: 'failed',
        failureReason: 'Stripe failed the refund',
        updatedAt: at(DAY),
      }
      expect(await store.transaction((tx) => tx.refunds.update(failed, done))).toBe(true)
      expect((await refunded()).filter(([, amount]) => amount !== 0)).toEqual([])
      expect(await store.refunds.findById(r.id)).toEqual(failed)
      // and only from the status expected
      expect(await store.transaction((tx) => tx.refunds.update(failed, done))).toBe(false)
    })

    it('when claims for due refunds race, then each pending due refund is claimed once with its check counted', async () => {
      const store = ctx.store()
      await settleDue(store)
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      const mine = Array.from({ length: 9 }, (_, n) => refundFixture(inv.id, m.id, { nextCheckAt: at(n) }))
      for (const r of mine) await store.transaction((tx) => tx.refunds.insert(r))
      // a final refund is never claimed, whatever its next check says
      await store.transaction((tx) =>
        tx.refunds.insert(refundFixture(inv.id, m.id, { status: 'failed', nextCheckAt: at(1) })),
      )
      const next = at(10 * MINUTE)
      const claims = await Promise.all(
        Array.from({ length: 3 }, () => store.transaction((tx) => tx.refunds.claimDue(at(MINUTE), 4, () => next))),
      )
      const claimed = claims.flat()
      expect(claimed.map((r) => r.id).sort()).toEqual(mine.map((r) => r.id).sort())
      for (const r of claimed) expect(r).toMatchObject({ checks: 1, nextCheckAt: next })
      expect(await store.transaction((tx) => tx.refunds.claimDue(at(MINUTE), 50, () => next))).toEqual([])
    })

    it("when the sandbox's refund control is armed twice, then it is taken once", async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      await store.transaction((tx) => tx.refunds.armSandboxFailure(inv.id, T0))
      await store.transaction((tx) => tx.refunds.armSandboxFailure(inv.id, T0))
      expect(await store.transaction((tx) => tx.refunds.takeSandboxFailure(inv.id))).toBe(true)
      expect(await store.transaction((tx) => tx.refunds.takeSandboxFailure(inv.id))).toBe(false)
    })
  })
}

/** A merchant's invoice with one refund its acquirer completed at at(1) (moved from pending by the store). */
async function givenSucceededRefund(store: Store) {
  const m = await givenMerchant(store)
  const inv = await givenInvoice(store, m.id)
  const r = refundFixture(inv.id, m.id)
  await store.transaction((tx) => tx.refunds.insert(r))
  const done: Refund = {
    ...r,
    status: 'succeeded',
    providerRefundId: `re_${r.id}`,
    nextCheckAt: null,
    updatedAt: at(1),
  }
  expect(await store.transaction((tx) => tx.refunds.update(done, r))).toBe(true)
  return { m, inv, r, done }
}
