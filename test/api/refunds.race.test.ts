import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { InvoiceId } from '../../src/domain/ids.js'
import { api, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

// docs/refunds.md#concurrency: the database settles the over-refund rule, on SQLite and (the postgres project) on PostgreSQL
describe('refunds under concurrency (docs/refunds.md#concurrency)', () => {
  let t: TestApp
  let m: TestMerchant
  let port: number
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    port = await t.listen()
  })
  afterEach(async () => t.close())

  const paidInvoice = async (amount: string): Promise<string> => {
    const shop = api(t).as(m)
    const id = await shop.newInvoice({ amount, currency: 'RUB' })
    expectStatus(await api(t).simulate(id, { outcome: 'paid' }), 200)
    return id
  }

  const race = (id: string, amounts: readonly string[]) =>
    Promise.all(
      amounts.map((amount, i) =>
        fetch(`http://127.0.0.1:${port}/api/v1/invoices/${id}/refunds`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey, 'idempotency-key': `race-${i}` },
          body: JSON.stringify({ amount }),
        }).then(async (r) => ({
          amount,
          status: r.status,
          body: (await r.json()) as { status?: string; code?: string; amount?: string },
        })),
      ),
    )

  const storedCents = async (id: string) =>
    (await t.rt.store.refunds.listByInvoice(id as InvoiceId)).filter((r) => r.status !== 'failed').map((r) => r.amount)

  it('when 20 equal partial refunds race over real sockets and together exceed the amount, then exactly the 14 that fit succeed', async () => {
    const id = await paidInvoice('100.00')
    const answers = await race(
      id,
      Array.from({ length: 20 }, () => '7.00'),
    )
    const ok = answers.filter((a) => a.status === 201)
    expect(ok).toHaveLength(14)
    expect(ok.every((a) => a.body.status === 'succeeded')).toBe(true)
    const refused = answers.filter((a) => a.status === 409)
    expect(refused).toHaveLength(6)
    expect(refused.every((a) => a.body.code === 'refund_exceeds_amount')).toBe(true)
    const stored = await storedCents(id)
    expect(stored).toHaveLength(14)
    expect(stored.reduce((s, a) => s + a, 0)).toBe(9800)
  })

  it('when 20 partial refunds of different amounts race, then their sum never exceeds the amount and each refused one no longer fit', async () => {
    const id = await paidInvoice('100.00')
    const amounts = Array.from({ length: 20 }, (_, i) => `${(i % 7) + 3}.${String((i * 13) % 100).padStart(2, '0')}`)
    const answers = await race(id, amounts)
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true)
    const stored = await storedCents(id)
    const sum = stored.reduce((s, a) => s + a, 0)
    expect(stored).toHaveLength(answers.filter((a) => a.status === 201).length)
    expect(sum).toBeLessThanOrEqual(10000)
    // what is left is less than each refused amount: none of them was refused while it still fitted
    for (const a of answers.filter((x) => x.status === 409))
      expect(Math.round(Number(a.amount) * 100)).toBeGreaterThan(10000 - sum)
  })
})
