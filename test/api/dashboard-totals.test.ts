/**
 * The dashboard's daily totals (docs/dashboard.md#daily-totals) move in the transaction of every change that moves
 * them — each path that changes an invoice's status, and a refund's success — and always equal a recount from the
 * invoices and refunds; also when payments and refunds race over real sockets. SQLite and (project postgres) PostgreSQL.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventId, InvoiceId, MerchantId } from '../../src/domain/ids.js'
import { transition } from '../../src/domain/invoice.js'
import type { Minor } from '../../src/domain/money.js'
import { api, expectStatus } from '../helpers/api.js'
import { buildTestApp, TEST_DB, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { dayOf } from '../../src/domain/daily-totals.js'
import { expectTotalsMatch, kept } from '../helpers/daily-totals.js'

describe('daily totals (docs/dashboard.md#daily-totals)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(async () => t.close())

  /** A merchant of its own per test: the one app's other tests never touch its totals. */
  const fresh = async (): Promise<{ m: TestMerchant; shop: ReturnType<typeof api> }> => {
    const m = await t.merchant()
    return { m, shop: api(t).as(m) }
  }
  const simulate = async (id: string, outcome: 'paid' | 'hold' | 'failed') =>
    expectStatus(await api(t).simulate(id, { outcome }), 200)

  it('when the provider settles invoices (paid, hold, failed), then the totals equal the recount', async () => {
    const { m, shop } = await fresh()
    const paid = await shop.newInvoice({ amount: '10.00', currency: 'RUB' })
    const held = await shop.newInvoice({ amount: '20.00', currency: 'RUB' })
    const failed = await shop.newInvoice({ amount: '5.00', currency: 'USD' })
    await shop.newInvoice({ amount: '1.00', currency: 'USD' })
    await simulate(paid, 'paid')
    await simulate(held, 'hold')
    await simulate(failed, 'failed')
    await expectTotalsMatch(t, m.id)
    const rows = Object.values(await kept(t, m.id))
    expect(rows.reduce((s, r) => s + r.paidAmount, 0)).toBe(1000)
    expect(rows.reduce((s, r) => s + r.hold, 0)).toBe(1)
  })

  it('when holds are captured and cancelled and a pending invoice is cancelled, then the totals equal the recount', async () => {
    const { m, shop } = await fresh()
    const [a, b, c] = [
      await shop.newInvoice({ amount: '3.00' }),
      await shop.newInvoice({ amount: '4.00' }),
      await shop.newInvoice({ amount: '5.00' }),
    ]
    await simulate(a, 'hold')
    await simulate(b, 'hold')
    expectStatus(await shop.capture(a), 200)
    expectStatus(await shop.cancel(b), 200)
    expectStatus(await shop.cancel(c), 200)
    await expectTotalsMatch(t, m.id)
    expect(Object.values(await kept(t, m.id)).reduce((s, r) => s + r.hold, 0)).toBe(0)
  })

  it('when the sweeps expire pending invoices in a batch and fail stale holds days later, then the totals equal the recount', async () => {
    const { m, shop } = await fresh()
    for (let i = 0; i < 5; i += 1) await shop.newInvoice({ amount: `${i + 1}.00` })
    await simulate(await shop.newInvoice({ amount: '9.00' }), 'hold')
    t.clock.advance(8 * 86_400) // past every expiry and the 7-day hold lifetime
    await t.sweep()
    await expectTotalsMatch(t, m.id)
    const rows = Object.values(await kept(t, m.id))
    expect(rows.reduce((s, r) => s + r.expired, 0)).toBe(5)
    expect(rows.reduce((s, r) => s + r.failed, 0)).toBe(1)
  })

  it('when an order whose invoice has expired is created again, then the expiry that create records is counted', async () => {
    const { m, shop } = await fresh()
    await shop.newInvoice({ amount: '2.00', order_id: 'again-1' })
    t.clock.advance(2 * 86_400)
    await shop.newInvoice({ amount: '2.00', order_id: 'again-1' })
    await expectTotalsMatch(t, m.id)
  })

  it('when refunds succeed and fail, then only the succeeded ones count, on the day they succeeded', async () => {
    const { m, shop } = await fresh()
    const id = await shop.newInvoice({ amount: '100.00', currency: 'RUB' })
    await simulate(id, 'paid')
    t.clock.advance(86_400)
    expectStatus(await shop.createRefund(id, { amount: '10.00' }, 'r1'), 201)
    expect((await shop.failNextSandboxRefund(id)).status).toBeLessThan(300)
    await shop.createRefund(id, { amount: '20.00' }, 'r2')
    expectStatus(await shop.createRefund(id, { amount: '5.00' }, 'r3'), 201)
    await expectTotalsMatch(t, m.id)
    expect(Object.values(await kept(t, m.id)).reduce((s, r) => s + r.refundedAmount, 0)).toBe(1500)
  })

  it('when a provider update or an EVM detection moves an invoice in a transaction of the store, then the totals move with it and roll back with it', async () => {
    const { m, shop } = await fresh()
    const id = (await shop.newInvoice({ amount: '7.00' })) as InvoiceId
    const move = (to: 'hold' | 'paid') =>
      t.rt.store.transaction(async (tx) => {
        const inv = (await tx.invoices.findById(id))!
        const moved = transition(inv, {
          to,
          now: t.clock.now(),
          eventId: randomUUID() as EventId,
          credited: 650 as Minor,
        })
        if (!moved.ok) throw new Error(moved.code)
        expect(await tx.invoices.update(moved.invoice, inv.status)).toBe(true)
        return moved.invoice
      })
    await move('hold')
    // a transaction that fails after the status change leaves neither the change nor the totals
    await expect(
      t.rt.store.transaction(async (tx) => {
        const inv = (await tx.invoices.findById(id))!
        const moved = transition(inv, { to: 'paid', now: t.clock.now(), eventId: randomUUID() as EventId })
        if (moved.ok) await tx.invoices.update(moved.invoice, 'hold')
        throw new Error('the provider call failed')
      }),
    ).rejects.toThrow('the provider call failed')
    await expectTotalsMatch(t, m.id)
    await move('paid')
    await expectTotalsMatch(t, m.id)
    const rows = Object.values(await kept(t, m.id))
    expect(rows.reduce((s, r) => s + r.creditedAmount, 0)).toBe(650)
  })

  it('when 30 payments and 20 refunds race over real sockets, then the totals equal the recount', async () => {
    const { m, shop } = await fresh()
    const port = await t.listen()
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        shop.newInvoice({ amount: `${i + 10}.00`, currency: i % 3 === 0 ? 'USD' : 'RUB' }),
      ),
    )
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }).then((r) => r.status)
    const paid = await Promise.all(ids.map((id) => post(`/pay/${id}/simulate`, { outcome: 'paid' })))
    expect(paid.every((s) => s === 200)).toBe(true)
    const refunds = await Promise.all(
      ids
        .slice(0, 10)
        .flatMap((id, i) =>
          [0, 1].map((k) =>
            post(
              `/api/v1/invoices/${id}/refunds`,
              { amount: '3.00' },
              { 'x-api-key': m.apiKey, 'idempotency-key': `race-${i}-${k}` },
            ),
          ),
        ),
    )
    expect(refunds.every((s) => s === 201)).toBe(true)
    await expectTotalsMatch(t, m.id as MerchantId)
    expect(Object.values(await kept(t, m.id)).reduce((s, r) => s + r.refundedAmount, 0)).toBe(6000)
  })

  it('when migration 009 runs on a database that has invoices and refunds already, then it fills the totals from them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'daily-totals-'))
    const file = join(dir, 'backfill.db')
    const u = await buildTestApp(TEST_DB === 'sqlite' ? { DATABASE_URL: `sqlite:${file}` } : {})
    try {
      const m = await u.merchant()
      const shop = api(u).as(m)
      const paid = await shop.newInvoice({ amount: '40.00', currency: 'RUB' })
      expectStatus(await api(u).simulate(paid, { outcome: 'paid' }), 200)
      expectStatus(
        await api(u).simulate(await shop.newInvoice({ amount: '2.00', currency: 'USD' }), { outcome: 'hold' }),
        200,
      )
      await shop.newInvoice({ amount: '3.00', currency: 'USD' })
      u.clock.advance(86_400)
      expectStatus(await shop.createRefund(paid, { amount: '15.00' }, 'backfill'), 201)
      const before = await kept(u, m.id)
      // as a database of the version before 009 would be: no totals, 009 not applied
      const undo = [
        'drop table daily_created',
        'drop table daily_totals',
        "delete from kysely_migration where name = '009-daily-totals'",
      ]
      if (TEST_DB === 'sqlite') {
        const raw = new BetterSqlite3(file)
        for (const q of undo) raw.exec(q)
        raw.close()
      } else {
        if (u.config.database.kind !== 'postgres') throw new Error('expected PostgreSQL')
        const client = new pg.Client({ connectionString: u.config.database.url })
        await client.connect()
        for (const q of undo) await client.query(q)
        await client.end()
      }
      await u.rt.store.migrate()
      await expectTotalsMatch(u, m.id)
      expect(await kept(u, m.id)).toEqual(before)
      const day = dayOf(new Date('2026-11-22T10:00:00.000Z'))
      expect((await u.rt.store.dailyTotals.createdByDay(m.id as MerchantId, day, day)).get(day)).toBe(3)
    } finally {
      await u.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
