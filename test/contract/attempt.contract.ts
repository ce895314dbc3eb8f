/**
 * The Store contract for checkout attempts at acquirers (docs/providers.md#attempts, docs/providers.md#reconciliation):
 * two Pay clicks racing to insert the same attempt number, and reconciliation claims racing for due attempts.
 *
 * PostgreSQL runs share one schema per file, so the tests never assume an empty table: each first moves whatever
 * an earlier test left due far into the future, and looks only at its own rows.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { InvoiceId } from '../../src/domain/ids.js'
import type { PaymentAttempt } from '../../src/domain/payment-attempt.js'
import type { Store } from '../../src/ports/store.js'
import { at, givenInvoice, givenMerchant, MINUTE, T0, type ContractContext } from './fixtures.js'

const FAR = new Date('2999-01-01T00:00:00.000Z')
const FARTHER = new Date('3999-01-01T00:00:00.000Z')

function attemptFixture(invoiceId: InvoiceId, over: Partial<PaymentAttempt> = {}): PaymentAttempt {
  return {
    id: randomUUID(),
    invoiceId,
    attempt: 1,
    provider: 'stripe',
    checkoutId: `cs_test_${randomUUID()}`,
    paymentId: null,
    redirectUrl: 'https://checkout.stripe.test/c/pay/1',
    state: 'open',
    amount: null,
    lateAction: null,
    nextCheckAt: T0,
    checks: 0,
    version: 0,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  }
}

/** Moves every attempt an earlier test left due (up to FAR) past FAR, so only this test's rows are due. */
async function settleDue(store: Store): Promise<void> {
  for (;;) {
    const claimed = await store.transaction((tx) => tx.attempts.claimDue(FAR, 100, () => FARTHER))
    if (claimed.length < 100) return
  }
}

export function describeAttemptContract(ctx: ContractContext): void {
  describe('attempts', () => {
    it('when two inserts of the same attempt number of an invoice race, then one is inserted and the other finds it exists', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      const [a, b] = [attemptFixture(inv.id), attemptFixture(inv.id)]
      const results = await Promise.all([a, b].map((x) => store.transaction((tx) => tx.attempts.insert(x))))
      expect([...results].sort()).toEqual(['exists', 'inserted'])
      const stored = await store.attempts.listByInvoice(inv.id)
      expect(stored).toHaveLength(1)
      expect(stored[0]).toEqual(results[0] === 'inserted' ? a : b)
    })

    it('when claims for due attempts race, then each due attempt is claimed once, its check counted and its next check moved', async () => {
      const store = ctx.store()
      await settleDue(store)
      const m = await givenMerchant(store)
      const mine = await Promise.all(
        Array.from({ length: 12 }, async (_, n) => {
          const inv = await givenInvoice(store, m.id)
          const attempt = attemptFixture(inv.id, { nextCheckAt: at(n) })
          await store.transaction((tx) => tx.attempts.insert(attempt))
          return attempt
        }),
      )
      const next = at(10 * MINUTE)
      const claims = await Promise.all(
        Array.from({ length: 4 }, () => store.transaction((tx) => tx.attempts.claimDue(at(MINUTE), 5, () => next))),
      )
      const claimed = claims.flat()
      expect(claimed.map((a) => a.id).sort()).toEqual(mine.map((a) => a.id).sort())
      for (const a of claimed) expect(a).toMatchObject({ checks: 1, version: 1, nextCheckAt: next })
      expect(await store.transaction((tx) => tx.attempts.claimDue(at(MINUTE), 50, () => next))).toEqual([])
      expect((await store.attempts.listByInvoice(mine[0]!.invoiceId))[0]).toMatchObject({
        checks: 1,
        nextCheckAt: next,
      })
    })
  })
}
