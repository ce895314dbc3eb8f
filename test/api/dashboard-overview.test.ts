/**
 * The overview page (docs/dashboard.md#overview) over HTTP: its figures for a small known set — refunds, two
 * currencies, an invoice outside the window, one that expired unswept —, the `days` parameter, a viewer, two
 * merchants that each see only their own figures, and an operator. SQLite and (project postgres) PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Minor } from '../../src/domain/money.js'
import { formatMoney } from '../../src/http/views/format.js'
import { api, expectStatus, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { FAST_PASSWORDS, signedIn, type DashboardClient } from '../helpers/dashboard.js'
import { expectTotalsMatch } from '../helpers/daily-totals.js'

const T0 = '2026-11-22T10:00:00.000Z'
const DAY = 86_400

/** The figure shown in the status grid (`created`, a status, `conversion`). */
function figure(body: string, name: string): string {
  const m = new RegExp(`data-figure="${name}"[^]*?<dd>([^<]*)</dd>`).exec(body)
  expect(m, `figure ${name}`).not.toBeNull()
  return m![1]!.trim()
}

describe('dashboard overview (docs/dashboard.md#overview)', () => {
  let t: TestApp
  let a: TestMerchant
  let b: TestMerchant
  let owner: DashboardClient
  let viewer: DashboardClient
  let other: DashboardClient
  let operator: DashboardClient

  const simulate = async (id: string, outcome: 'paid' | 'hold') =>
    expectStatus(await api(t).simulate(id, { outcome }), 200)
  const paid = async (shop: TestClient, amount: string, currency: string) => {
    const id = await shop.newInvoice({ amount, currency })
    await simulate(id, 'paid')
    return id
  }

  beforeAll(async () => {
    t = await buildTestApp({}, { passwords: FAST_PASSWORDS })
    a = await t.merchant('Acme Books')
    b = await t.merchant('Other Shop')
    const shopA = api(t).as(a)
    const shopB = api(t).as(b)
    // 40 days before: inside 90 days, outside 30
    t.clock.set(new Date(new Date(T0).getTime() - 40 * DAY * 1000))
    await paid(shopA, '500.00', 'RUB')
    // day 0
    t.clock.set(T0)
    const a1 = await paid(shopA, '100.00', 'RUB')
    await simulate(await shopA.newInvoice({ amount: '50.00', currency: 'RUB' }), 'hold')
    await paid(shopA, '10.00', 'USD')
    expectStatus(await shopA.cancel(await shopA.newInvoice({ amount: '5.00', currency: 'USD' })), 200)
    await shopA.newInvoice({ amount: '1.00', currency: 'RUB' }) // pending: reads expired two days on (not swept)
    await paid(shopB, '99.00', 'EUR')
    // day 1
    t.clock.advance(DAY)
    expectStatus(await shopA.createRefund(a1, { amount: '30.00' }, 'refund-1'), 201)
    await paid(shopA, '20.00', 'RUB')
    // day 2 (today)
    t.clock.advance(DAY)
    await shopA.newInvoice({ amount: '3.00', currency: 'RUB' }) // pending
    owner = await signedIn(t, { merchantId: a.id, email: 'owner@acme.example' })
    viewer = await signedIn(t, { merchantId: a.id, email: 'viewer@acme.example', role: 'viewer' })
    other = await signedIn(t, { merchantId: b.id, email: 'owner@other.example' })
    operator = await signedIn(t, { admin: true, email: 'ops@service.example' })
  })
  afterAll(async () => t.close())

  it('when the owner opens the overview, then the counts, conversion and totals per currency are those of the last 30 days', async () => {
    await expectTotalsMatch(t, a.id)
    for (const round of [1, 2]) {
      // the second read takes the ended days' created counts the first one kept
      const res = await owner.get('/dashboard')
      expect(res.statusCode, `read ${round}`).toBe(200)
      expect(figure(res.body, 'created')).toBe('7')
      expect(figure(res.body, 'pending')).toBe('1')
      expect(figure(res.body, 'hold')).toBe('1')
      expect(figure(res.body, 'paid')).toBe('3')
      expect(figure(res.body, 'failed')).toBe('1')
      expect(figure(res.body, 'expired')).toBe('1')
      expect(figure(res.body, 'conversion')).toBe('42.9%')
      const row = (currency: string) => new RegExp(`<th scope="row">${currency}</th>([^]*?)</tr>`).exec(res.body)?.[1]
      const rub = row('RUB')!
      expect(rub).toContain(formatMoney(12000 as Minor, 'RUB', 'en'))
      expect(rub).toContain(formatMoney(3000 as Minor, 'RUB', 'en'))
      expect(row('USD')).toContain(formatMoney(1000 as Minor, 'USD', 'en'))
      expect(res.body).toContain('<figcaption id="chart-RUB">')
      expect(res.body).toContain('<figcaption id="chart-USD">')
      expect(res.body).not.toContain(formatMoney(50000 as Minor, 'RUB', 'en')) // 40 days ago
      expect(res.body).toContain('owner@acme.example')
    }
  })

  it('when the period is 90 or 7 days, then the figures follow it; any other value is a 400 page', async () => {
    const ninety = await owner.get('/dashboard?days=90')
    expect(figure(ninety.body, 'created')).toBe('8')
    expect(figure(ninety.body, 'paid')).toBe('4')
    expect(ninety.body).toContain(formatMoney(62000 as Minor, 'RUB', 'en'))
    expect(ninety.body).toMatch(/href="\/dashboard\?days=90" aria-current="page"/)
    const seven = await owner.get('/dashboard?days=7')
    expect(figure(seven.body, 'created')).toBe('7')
    expect(seven.body).toMatch(/href="\/dashboard\?days=7" aria-current="page"/)
    for (const bad of ['5', 'abc', '30.0', '7&days=30']) {
      const res = await owner.get(`/dashboard?days=${bad}`, { accept: 'text/html' })
      expect(res.statusCode, bad).toBe(400)
      expect(res.body).toContain('validation_failed')
    }
  })

  it('when the page is asked in Russian, then its words and amounts are Russian', async () => {
    const res = await owner.get('/dashboard?lang=ru')
    expect(res.body).toContain('Счета по статусам')
    expect(res.body).toContain(formatMoney(12000 as Minor, 'RUB', 'ru'))
    expect(res.body).toContain('href="/dashboard?days=7&amp;lang=ru"')
  })

  it('when a viewer opens it, then it shows the same figures', async () => {
    const res = await viewer.get('/dashboard')
    expect(res.statusCode).toBe(200)
    expect(figure(res.body, 'created')).toBe('7')
    expect(figure(res.body, 'paid')).toBe('3')
  })

  it("when two merchants have invoices, then each sees only its own figures, never the other's", async () => {
    const mine = await other.get('/dashboard?days=90')
    expect(figure(mine.body, 'created')).toBe('1')
    expect(figure(mine.body, 'paid')).toBe('1')
    expect(mine.body).toContain(formatMoney(9900 as Minor, 'EUR', 'en'))
    expect(mine.body).not.toContain('RUB')
    const theirs = await owner.get('/dashboard?days=90')
    expect(theirs.body).not.toContain('EUR')
  })

  it('when an operator opens /dashboard, then it is sent on to the console', async () => {
    const res = await operator.get('/dashboard')
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/dashboard/console')
  })

  it('when nobody is signed in, then /dashboard sends to sign-in', async () => {
    const res = await api(t).raw({ url: '/dashboard' })
    expect(res.status).toBe(303)
  })
})
