import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { decodeQrPng as decodeQr } from '../helpers/decode-qr.js'

describe('POST /api/v1/invoices — happy paths', () => {
  let t: TestApp
  let m: TestMerchant
  let shop: TestClient
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    shop = api(t).as(m)
  })
  afterEach(async () => t.close())

  it('when a valid invoice is posted, then 201 with exactly the original API fields and a QR that decodes to qr_data', async () => {
    const res = await shop.createInvoice({
      order_id: 'A-1',
      amount: 100.5,
      currency: 'rub',
      comment: 'Mug',
      service: 'card',
      callback_url: 'https://shop.example/hook',
    })
    expectStatus(res, 201)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = res.body
    expect(Object.keys(body).sort()).toEqual(['amount', 'is_new', 'order_id', 'pay_url', 'qr_image', 'qr_url'])
    expect(body.order_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(body.amount).toBe('100.50')
    expect(body.is_new).toBe(true)
    expect(body.pay_url).toBe(`http://pay.test/pay/${body.order_id}`)
    expect(body.qr_url).toBe(`http://pay.test/qr/${body.order_id}.png`)
    expect(body.qr_image).toMatch(/^data:image\/png;base64,/)
    const png = Buffer.from(body.qr_image.slice('data:image/png;base64,'.length), 'base64')
    expect(decodeQr(png)).toBe(body.pay_url)

    const info = await shop.getInfo({ merchant_id: m.id, invoice_id: body.order_id })
    expectStatus(info, 200)
    expect(info.body).toMatchObject({
      order_id: 'A-1',
      amount: 100.5,
      currency: 'RUB',
      service: 'card',
      status: 'pending',
      qr_data: body.pay_url,
    })
  })

  it('when the amount is a decimal string, then it is taken exactly', async () => {
    const res = await shop.createInvoice({ order_id: 'A-2', amount: '1234.10', currency: 'USD' })
    expectStatus(res, 201)
    expect(res.body.amount).toBe('1234.10')
  })

  describe('in a currency without a minor unit (JPY)', () => {
    let jpy: TestApp
    beforeEach(async () => {
      jpy = await buildTestApp({ CURRENCIES: 'JPY,RUB', SERVICE_LIMITS: 'card=1..1000000' })
    })
    afterEach(async () => jpy.close())

    it('when the currency has no minor unit, then the amount string has no decimals', async () => {
      const res = await api(jpy)
        .as(await jpy.merchant())
        .createInvoice({ order_id: 'J', amount: 5, currency: 'JPY' })
      expectStatus(res, 201)
      expect(res.body.amount).toBe('5')
    })

    it('when the amount has decimals the currency has not, then 400 validation_failed', async () => {
      const res = await api(jpy)
        .as(await jpy.merchant())
        .createInvoice({ order_id: 'J2', amount: '5.5', currency: 'JPY' })
      expectProblem(res, 400, 'validation_failed')
    })
  })

  it('when the amount is the largest a service may allow, then getInfo`s JSON number is still exactly that amount', async () => {
    const t2 = await buildTestApp({ SERVICE_LIMITS: 'card=1..9999999999999.99' })
    try {
      const big = api(t2).as(await t2.merchant())
      const id = await big.newInvoice({ order_id: 'BIG', amount: '9999999999999.99', currency: 'RUB' })
      expectStatus(await big.simulate(id, { outcome: 'paid' }), 200)
      const info = await big.getInvoice(id)
      expect(info.text).toContain('"amount":9999999999999.99,')
      expect(info.text).toContain('"credited":9999999999999.99,')
    } finally {
      await t2.close()
    }
  })

  it('when the same order_id is sent again with the same amount, currency and service, then 200 with the same invoice and is_new false', async () => {
    const first = await shop.createInvoice({ order_id: 'A-3', amount: '10.00', currency: 'EUR' })
    expectStatus(first, 201)
    const again = await shop.createInvoice({
      order_id: 'A-3',
      amount: 10,
      currency: 'eur',
      comment: 'ignored',
      callback_url: 'https://other.example/h',
    })
    expectStatus(again, 200)
    expect(again.body).toMatchObject({
      order_id: first.body.order_id,
      is_new: false,
      amount: '10.00',
      pay_url: first.body.pay_url,
    })
  })

  describe('an order whose earlier invoice expired', () => {
    let first: string
    let second: Awaited<ReturnType<TestClient['createInvoice']>>
    beforeEach(async () => {
      first = await shop.newInvoice({ order_id: 'A-4', amount: '10.00', currency: 'EUR', lifetime: 300 })
      t.clock.advance(301)
      second = await shop.createInvoice({ order_id: 'A-4', amount: '12.00', currency: 'EUR' })
    })

    it('when the earlier invoice of an order expired, then a new invoice is created', async () => {
      expectStatus(second, 201)
      expect(second.body.is_new).toBe(true)
      expect(second.body.order_id).not.toBe(first)
    })

    it('when the earlier invoice of an order expired, then getInfo by order_id returns the newest', async () => {
      expectStatus(second, 201)
      const info = await shop.getInfo({ merchant_id: m.id, order_id: 'A-4' })
      expectStatus(info, 200)
      expect(info.body.id).toBe(second.body.order_id)
    })

    it('when the earlier invoice of an order expired, then it reads expired, expired in the database with its outbox event', async () => {
      const old = await shop.getInfo({ merchant_id: m.id, invoice_id: first })
      expectStatus(old, 200)
      expect(old.body.status).toBe('expired')
      const events = await t.rt.store.events.listByInvoice(first as never)
      expect(events.map((e) => e.type)).toEqual(['invoice.expired'])
    })
  })

  it("when no service is given, then the merchant's default service is used", async () => {
    const sbp = await t.merchant('SBP shop', 'sbp')
    const res = await api(t).as(sbp).createInvoice({ order_id: 'A-5', amount: 1, currency: 'RUB' })
    const info = await api(t).as(sbp).getInfo({ merchant_id: sbp.id, order_id: 'A-5' })
    expectStatus(res, 201)
    expectStatus(info, 200)
    expect(info.body.service).toBe('sbp')
  })

  it('when lifetime is given, then expired_at is that many seconds after created_at', async () => {
    const id = await shop.newInvoice({ order_id: 'A-6', amount: 1, currency: 'RUB', lifetime: 900 })
    const info = await shop.getInvoice(id)
    expectStatus(info, 200)
    expect(new Date(info.body.expired_at).getTime() - new Date(info.body.created_at).getTime()).toBe(900_000)
    expect(info.body.created_at).toBe('2026-11-22T10:00:00.000Z')
  })

  it('when an invoice is created, then its QR image is served at qr_url and decodes to qr_data', async () => {
    const res = await shop.createInvoice({ order_id: 'A-7', amount: 1, currency: 'RUB' })
    expectStatus(res, 201)
    const png = await shop.raw({ url: new URL(res.body.qr_url).pathname })
    expect(png.status).toBe(200)
    expect(png.headers['content-type']).toBe('image/png')
    expect(decodeQr(png.bytes)).toBe(res.body.pay_url)
  })

  it('when the charset is given with the JSON content type, then the body is accepted', async () => {
    const res = await shop.raw({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ order_id: 'A-8', amount: 1, currency: 'RUB' }),
    })
    expect(res.status).toBe(201)
  })
})
