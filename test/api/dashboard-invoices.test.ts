/**
 * The dashboard's invoices (docs/dashboard.md#invoices): filters, search, keyset pages, the streamed CSV export, the
 * invoice page and its actions (capture, cancel, refund, redeliver), each tried across merchants (404), as a viewer
 * (403 forbidden) and without its CSRF token (403 csrf_failed). One app for the file.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Invoice } from '../../src/domain/invoice.js'
import { EXPORT_BATCH } from '../../src/app/export-invoices.js'
import { api, expectStatus, type TestClient } from '../helpers/api.js'
import { buildTestApp, TEST_DB, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { FAST_PASSWORDS, signedIn, type DashboardClient, type InjectResponse } from '../helpers/dashboard.js'

const ENV = { CALLBACK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' }

/** RFC 4180 parsing, enough to read the export back: quoted cells, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((cell += '"'), (i += 1))
      else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') (row.push(cell), (cell = ''))
    else if (c === '\r' && text[i + 1] === '\n') {
      ;(row.push(cell), rows.push(row), (row = []), (cell = ''), (i += 1))
    } else cell += c
  }
  if (cell !== '' || row.length > 0) (row.push(cell), rows.push(row))
  return rows
}

const codeOf = (res: InjectResponse) => (JSON.parse(res.body) as { code: string }).code
const ids = (body: string) => [...body.matchAll(/href="\/dashboard\/invoices\/([0-9a-f-]{36})"/g)].map((m) => m[1])

describe('dashboard invoices (docs/dashboard.md#invoices)', () => {
  let t: TestApp
  let a: TestMerchant
  let shop: TestClient
  let owner: DashboardClient
  let viewer: DashboardClient
  let stranger: DashboardClient
  const made: Record<string, string> = {}

  const create = async (order: string, fields: Record<string, unknown> = {}) => {
    const res = await shop.createInvoice({ order_id: order, amount: '10.00', currency: 'RUB', ...fields } as never)
    expectStatus(res, 201)
    made[order] = res.body.order_id // the original API's create names the invoice id `order_id`
    t.clock.advance(1)
    return res.body.order_id
  }

  beforeAll(async () => {
    t = await buildTestApp(ENV, { passwords: FAST_PASSWORDS })
    a = await t.merchant('Acme Books')
    const b = await t.merchant('Other Shop')
    shop = api(t).as(a)
    owner = await signedIn(t, { merchantId: a.id, email: 'owner@acme.example' })
    viewer = await signedIn(t, { merchantId: a.id, email: 'viewer@acme.example', role: 'viewer' })
    stranger = await signedIn(t, { merchantId: b.id, email: 'owner@other.example' })
    // 55 plain ones, then the ones the filters and actions find
    for (let i = 0; i < 55; i += 1) await create(`BULK-${String(i).padStart(2, '0')}`)
    await create('EUR-1', { currency: 'EUR', amount: '12.34', service: 'sbp' })
    await create('=HYPER', { comment: '=cmd, "quoted"\u00a0текст' })
    const hook = { callback_url: 'http://127.0.0.1:9/hook' }
    for (const o of ['HOLD-1', 'HOLD-2', 'PAID-1']) await create(o, hook)
    await create('PENDING-1', hook)
    await create('SHORT-1', { lifetime: 300 })
    for (const o of ['HOLD-1', 'HOLD-2']) expectStatus(await api(t).simulate(made[o]!, { outcome: 'hold' }), 200)
    expectStatus(await api(t).simulate(made['PAID-1']!, { outcome: 'paid' }), 200)
  })
  afterAll(async () => t.close())

  it('lists newest first, 50 a page, with next and previous pages that walk every invoice once', async () => {
    const first = await owner.get('/dashboard/invoices')
    expect(first.statusCode).toBe(200)
    const page1 = ids(first.body)
    expect(page1).toHaveLength(50)
    expect(page1[0]).toBe(made['SHORT-1'])
    expect(first.body).not.toContain('rel="prev"')
    const next = /rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&')
    const second = await owner.get(next!)
    const page2 = ids(second.body)
    expect(page2).toHaveLength(12)
    expect(new Set([...page1, ...page2]).size).toBe(62)
    expect(second.body).not.toContain('rel="next"')
    const prev = /rel="prev" href="([^"]+)"/.exec(second.body)?.[1]?.replace(/&amp;/g, '&')
    const back = await owner.get(prev!)
    expect(ids(back.body)).toEqual(page1)
    // amounts by the currency's exponent, status badges
    expect(first.body).toContain('12.34 EUR')
    expect(first.body).toMatch(/badge badge-hold/)
  })

  it('filters by status (as read), service, currency and created dates, and finds by id or order_id exactly', async () => {
    const list = async (q: string) => ids((await owner.get(`/dashboard/invoices?${q}`)).body)
    expect(await list('status=hold')).toEqual([made['HOLD-2'], made['HOLD-1']])
    expect(await list('status=paid')).toEqual([made['PAID-1']])
    expect(await list('service=sbp')).toEqual([made['EUR-1']])
    expect(await list('currency=eur')).toEqual([made['EUR-1']])
    expect(await list('currency=EUR&status=paid')).toEqual([])
    expect(await list(`q=${made['PAID-1']}`)).toEqual([made['PAID-1']])
    expect(await list('q=HOLD-1')).toEqual([made['HOLD-1']])
    expect(await list('q=HOLD')).toEqual([])
    const today = t.clock.now().toISOString().slice(0, 10)
    expect(await list(`created_from=${today}&created_to=${today}`)).toHaveLength(50)
    expect(await list('created_to=2000-01-01')).toEqual([])
    // empty fields of the form are no filter
    expect(await list('status=&service=&currency=&created_from=&created_to=&q=')).toHaveLength(50)
    // expired as read: a pending invoice past its expiry, before any sweep (sessions outlive the 5 minutes)
    t.clock.advance(301)
    expect(await list('status=expired')).toEqual([made['SHORT-1']])
    expect(await list('status=pending&q=SHORT-1')).toEqual([])
    expect(await list('status=pending&q=PENDING-1')).toEqual([made['PENDING-1']])
  })

  it('answers a bad filter with 400 validation_failed naming the field', async () => {
    for (const [q, field] of [
      ['status=lost', 'status'],
      ['currency=EURO', 'currency'],
      ['service=Bad Name', 'service'],
      ['created_from=2026-02-30', 'created_from'],
      ['created_to=yesterday', 'created_to'],
      ['cursor=nope', 'cursor'],
      ['before=nope', 'before'],
    ]) {
      const res = await owner.get(`/dashboard/invoices?${q}`, { accept: 'text/html' })
      expect(res.statusCode, q).toBe(400)
      expect(res.body).toContain('validation_failed')
      expect(res.body).toContain(field)
      const csv = await owner.get(`/dashboard/invoices.csv?${q}`)
      if (field !== 'cursor' && field !== 'before') expect(csv.statusCode, q).toBe(400)
    }
  })

  it('exports the filtered set as CSV: header, RFC 4180 quoting, decimal amounts, formula cells defused', async () => {
    const res = await owner.get('/dashboard/invoices.csv?status=hold')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="invoices-\d{4}-\d{2}-\d{2}\.csv"$/)
    const rows = parseCsv(res.body)
    expect(rows[0]).toEqual(expect.arrayContaining(['id', 'order_id', 'amount', 'currency', 'status']))
    expect(rows.slice(1).map((r) => r[1])).toEqual(['HOLD-2', 'HOLD-1'])
    const all = parseCsv((await owner.get('/dashboard/invoices.csv')).body)
    expect(all).toHaveLength(63)
    const hyper = all.find((r) => r[0] === made['=HYPER'])!
    expect(hyper[1]).toBe("'=HYPER")
    expect(hyper[11]).toBe('\'=cmd, "quoted"\u00a0текст')
    expect(all.find((r) => r[1] === 'EUR-1')?.slice(2, 4)).toEqual(['12.34', 'EUR'])
  })

  it("shows an invoice: its fields, timeline, deliveries and refunds; another merchant's is 404", async () => {
    const page = await owner.get(`/dashboard/invoices/${made['HOLD-1']}`)
    expect(page.statusCode).toBe(200)
    for (const text of ['HOLD-1', '10.00 RUB', 'http://127.0.0.1:9/hook', 'funds held', 'invoice.hold', 'Capture'])
      expect(page.body).toContain(text)
    const ru = await owner.get(`/dashboard/invoices/${made['HOLD-1']}?lang=ru`)
    expect(ru.body).toContain('средства удержаны')
    // a viewer sees it, without a form
    const seen = await viewer.get(`/dashboard/invoices/${made['HOLD-1']}`)
    expect(seen.statusCode).toBe(200)
    expect(seen.body).not.toContain('/capture')
    for (const path of [
      `/dashboard/invoices/${made['HOLD-1']}`,
      '/dashboard/invoices/not-an-id',
      `/dashboard/invoices/${randomUUID()}`,
    ]) {
      const res = await stranger.get(path)
      expect(res.statusCode, path).toBe(404)
      expect(codeOf(res)).toBe('not_found')
    }
    // the stranger's list and export hold nothing of A's
    expect(ids((await stranger.get('/dashboard/invoices')).body)).toEqual([])
    expect(parseCsv((await stranger.get('/dashboard/invoices.csv')).body)).toHaveLength(1)
  })

  it('captures a hold and cancels another: 303 back with a notice; a second capture shows 409 on the page', async () => {
    const page = `/dashboard/invoices/${made['HOLD-1']}`
    const res = await owner.post(`${page}/capture`, {}, page)
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe(`${page}?done=captured`)
    const after = await owner.get(res.headers.location as string)
    expect(after.body).toContain('The hold was captured')
    expect(after.body).toMatch(/badge badge-paid/)
    expect(after.body).toContain('invoice.paid')
    const again = await owner.post(`${page}/capture`, {}, page)
    expect(again.statusCode).toBe(409)
    expect(again.body).toContain('409 invalid_transition')

    const other = `/dashboard/invoices/${made['HOLD-2']}`
    const cancel = await owner.post(`${other}/cancel`, {}, other)
    expect(cancel.headers.location).toBe(`${other}?done=cancelled`)
    expect((await owner.get(other)).body).toMatch(/badge badge-failed/)
  })

  it('refunds once per form however often it is sent, and shows refund_exceeds_amount on the page', async () => {
    const page = `/dashboard/invoices/${made['PAID-1']}`
    const form = await owner.get(page)
    const key = /name="idempotency_key" value="([^"]+)"/.exec(form.body)?.[1]
    expect(key).toBeDefined()
    for (let i = 0; i < 2; i += 1) {
      const res = await owner.post(`${page}/refund`, { idempotency_key: key!, amount: '4.00', reason: 'broken' }, page)
      expect(res.statusCode).toBe(303)
      expect(res.headers.location).toBe(`${page}?done=refunded`)
    }
    const after = await owner.get(page)
    expect(after.body).toContain('4.00 RUB')
    expect(after.body).toContain('refund.succeeded')
    const refunds = await shop.listRefunds(made['PAID-1']!)
    expectStatus(refunds, 200)
    expect(refunds.body.data.map((r) => r.amount)).toEqual(['4.00'])
    const over = await owner.post(`${page}/refund`, { idempotency_key: randomUUID(), amount: '7.00' }, page)
    expect(over.statusCode).toBe(409)
    expect(over.body).toContain('409 refund_exceeds_amount')
    const pending = `/dashboard/invoices/${made['PENDING-1']}`
    const early = await owner.post(`${pending}/refund`, { idempotency_key: randomUUID() }, pending)
    expect(early.statusCode).toBe(409)
    expect(early.body).toContain('409 invalid_transition')
  })

  it('redelivers a delivery of the invoice', async () => {
    const page = `/dashboard/invoices/${made['PAID-1']}`
    const body = (await owner.get(page)).body
    const path = /action="(\/dashboard\/invoices\/[^"]+\/deliveries\/[^"]+\/redeliver)"/.exec(body)?.[1]
    expect(path).toBeDefined()
    const res = await owner.post(path!, {}, page)
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe(`${page}?done=redelivered`)
    // a delivery of another invoice, under this one's path: 404
    const wrong = path!.replace(made['PAID-1']!, made['PENDING-1']!)
    expect((await owner.post(wrong, {}, page)).statusCode).toBe(404)
  })

  it('every action: another merchant 404 not_found, a viewer 403 forbidden, no CSRF token 403 csrf_failed', async () => {
    const page = `/dashboard/invoices/${made['PENDING-1']}`
    const delivery = /deliveries\/([0-9a-f-]{36})\/redeliver/.exec(
      (await owner.get(`/dashboard/invoices/${made['PAID-1']}`)).body,
    )?.[1]
    const actions = [
      `${page}/capture`,
      `${page}/cancel`,
      `${page}/refund`,
      `/dashboard/invoices/${made['PAID-1']}/deliveries/${delivery}/redeliver`,
    ]
    for (const action of actions) {
      const form = { idempotency_key: randomUUID() }
      const cross = await stranger.post(action, form, '/dashboard/invoices')
      expect(cross.statusCode, action).toBe(404)
      expect(codeOf(cross)).toBe('not_found')
      const looker = await viewer.post(action, form, '/dashboard/invoices')
      expect(looker.statusCode, action).toBe(403)
      expect(codeOf(looker)).toBe('forbidden')
      const forged = await owner.request('POST', action, form)
      expect(forged.statusCode, action).toBe(403)
      expect(codeOf(forged)).toBe('csrf_failed')
    }
    // nothing changed
    expect((await owner.get(page)).body).toMatch(/badge badge-pending/)
  })

  it(`exports ${TEST_DB === 'postgres' ? '5,000' : '100,000'} invoices in bounded batches, parsed back whole`, async () => {
    const c = await t.merchant('Bulk Shop')
    const bulk = await signedIn(t, { merchantId: c.id, email: 'owner@bulk.example' })
    const template = (await t.rt.store.invoices.findById(made['BULK-00'] as never)) as Invoice
    const total = TEST_DB === 'postgres' ? 5_000 : 100_000
    const base = t.clock.now().getTime() - total
    for (let from = 0; from < total; from += 5_000)
      await t.rt.store.transaction(async (tx) => {
        for (let i = from; i < Math.min(total, from + 5_000); i += 1)
          await tx.invoices.insert({
            ...template,
            id: randomUUID() as Invoice['id'],
            merchantId: c.id as Invoice['merchantId'],
            orderId: `B-${i}`,
            amount: (i + 1) as Invoice['amount'],
            comment: i % 1000 === 0 ? `+${i}, "x"` : null,
            createdAt: new Date(base + i),
          })
      })
    const list = vi.spyOn(t.rt.deps.store.invoices, 'list')
    const res = await bulk.get('/dashboard/invoices.csv')
    const limits = list.mock.calls.map(([q]) => q.limit)
    list.mockRestore()
    expect(res.statusCode).toBe(200)
    const rows = parseCsv(res.body)
    expect(rows).toHaveLength(total + 1)
    expect(rows[1]?.[1]).toBe(`B-${total - 1}`)
    expect(rows[1]?.[2]).toBe((total / 100).toFixed(2))
    expect(rows[total]?.slice(1, 3)).toEqual(['B-0', '0.01'])
    expect(rows[total]?.[11]).toBe('\'+0, "x"')
    expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(total)
    // read by keyset, EXPORT_BATCH rows at a time: never the whole set at once
    expect(Math.max(...limits)).toBe(EXPORT_BATCH)
    expect(limits.length).toBe(Math.floor(total / EXPORT_BATCH) + 1)
  }, 120_000)
})
