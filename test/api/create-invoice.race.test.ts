import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

describe('idempotent create under concurrency (docs/api.md#idempotency)', () => {
  let t: TestApp
  let m: TestMerchant
  let port: number
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    port = await t.listen()
  })
  afterEach(async () => t.close())

  it('when 25 identical requests race over real sockets, then exactly one invoice exists and exactly one answer says is_new', async () => {
    const body = JSON.stringify({ order_id: 'RACE-1', amount: '99.99', currency: 'RUB' })
    const answers = await Promise.all(
      Array.from({ length: 25 }, () =>
        fetch(`http://127.0.0.1:${port}/api/v1/invoices`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
          body,
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { order_id: string; is_new: boolean } })),
      ),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(24)
    expect(answers.filter((a) => a.body.is_new)).toHaveLength(1)
    expect(new Set(answers.map((a) => a.body.order_id)).size).toBe(1)
    const all = await t.rt.store.invoices.list({ merchantId: m.id as never, limit: 100, now: t.clock.now() })
    expect(all).toHaveLength(1)
  })

  it('when requests with different amounts race for one order_id, then one invoice and the rest 200 or 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`http://127.0.0.1:${port}/api/v1/invoices`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
          body: JSON.stringify({ order_id: 'RACE-2', amount: i % 2 === 0 ? 10 : 20, currency: 'RUB' }),
        }).then((r) => r.status),
      ),
    )
    expect(answers.filter((s) => s === 201)).toHaveLength(1)
    expect(answers.every((s) => s === 201 || s === 200 || s === 409)).toBe(true)
    const all = await t.rt.store.invoices.list({ merchantId: m.id as never, limit: 100, now: t.clock.now() })
    expect(all).toHaveLength(1)
  })

  it('when 20 identical requests race for an order whose invoice expired but is still pending in the database, then it is expired once and exactly one new invoice is created', async () => {
    const post = (amount: string) =>
      fetch(`http://127.0.0.1:${port}/api/v1/invoices`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
        body: JSON.stringify({ order_id: 'RACE-3', amount, currency: 'RUB', lifetime: 300 }),
      })
    const stale = (await (await post('10.00')).json()) as { order_id: string }
    t.clock.advance(301) // no sweep ran: the old invoice is still pending in the database
    // twenty connections open first, so the creates arrive together instead of behind their connection setups
    await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`http://127.0.0.1:${port}/api/invoice/getInfo?merchant_id=${m.id}&invoice_id=${stale.order_id}`, {
          headers: { 'x-api-key': m.apiKey },
        }).then((r) => r.arrayBuffer()),
      ),
    )
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        post('20.00').then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { order_id: string; is_new: boolean },
        })),
      ),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19)
    expect(answers.filter((a) => a.body.is_new)).toHaveLength(1)
    const fresh = new Set(answers.map((a) => a.body.order_id))
    expect(fresh.size).toBe(1)
    expect(fresh.has(stale.order_id)).toBe(false)
    const all = await t.rt.store.invoices.list({ merchantId: m.id as never, limit: 100, now: t.clock.now() })
    expect(all.map((inv) => inv.status).sort()).toEqual(['expired', 'pending'])
    // expired once: one invoice.expired event (its webhook), however many requests found it stale
    expect((await t.rt.store.events.listByInvoice(stale.order_id as never)).map((e) => e.type)).toEqual([
      'invoice.expired',
    ])
  })
})
