import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, json, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { decodeQrPng as decodeQr } from '../helpers/decode-qr.js'

describe('POST /api/v1/invoices — happy paths', () => {
  let t: TestApp
  let m: TestMerchant
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
  })
  afterEach(async () => t.close())

  const create = (body: Record<string, unknown>, key = m.apiKey) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      ...json(body),
      headers: { 'content-type': 'application/json', 'x-api-key': key },
    })

  it('when a valid invoice is posted, then 201 with exactly the seed fields and a QR that decodes to qr_data', async () => {
    const res = await create({
      order_id: 'A-1',
      amount: 100.5,
      currency: 'rub',
      comment: 'Mug',
      service: 'card',
      callback_url: 'https://shop.example/hook',
    })
    expect(res.statusCode).toBe(201)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = res.json()
    expect(Object.keys(body).sort()).toEqual(['amount', 'is_new', 'order_id', 'pay_url', 'qr_image', 'qr_url'])
    expect(body.order_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(body.amount).toBe('100.50')
    expect(body.is_new).toBe(true)
    expect(body.pay_url).toBe(`http://pay.test/pay/${body.order_id}`)
    expect(body.qr_url).toBe(`http://pay.test/qr/${body.order_id}.png`)
    expect(body.qr_image).toMatch(/^data:image\/png;base64,/)
    const png = Buffer.from(body.qr_image.slice('data:image/png;base64,'.length), 'base64')
    expect(decodeQr(png)).toBe(body.pay_url)

    const info = await t.app.inject({
      url: `/api/invoice/getInfo?merchant_id=${m.id}&invoice_id=${body.order_id}`,
      headers: { 'x-api-key': m.apiKey },
    })
    expect(info.statusCode).toBe(200)
    expect(info.json()).toMatchObject({
      order_id: 'A-1',
      amount: 100.5,
      currency: 'RUB',
      service: 'card',
      status: 'pending',
      qr_data: body.pay_url,
    })
  })

  it('when the amount is a decimal string, then it is taken exactly', async () => {
    const res = await create({ order_id: 'A-2', amount: '1234.10', currency: 'USD' })
    expect(res.statusCode).toBe(201)
    expect(res.json().amount).toBe('1234.10')
  })

  it('when the currency has no minor unit, then the amount string has no decimals', async () => {
    const t2 = await buildTestApp({ CURRENCIES: 'JPY,RUB', SERVICE_LIMITS: 'card=1..1000000' })
    const m2 = await t2.merchant()
    const res = await t2.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: { 'content-type': 'application/json', 'x-api-key': m2.apiKey },
      payload: JSON.stringify({ order_id: 'J', amount: 5, currency: 'JPY' }),
    })
    expect(res.statusCode).toBe(201)
    expect(res.json().amount).toBe('5')
    const refused = await t2.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: { 'content-type': 'application/json', 'x-api-key': m2.apiKey },
      payload: JSON.stringify({ order_id: 'J2', amount: '5.5', currency: 'JPY' }),
    })
    expect(refused.statusCode).toBe(400)
    await t2.close()
  })

  it('when the amount is the largest a service may allow, then getInfo`s JSON number is still exactly that amount', async () => {
    const t2 = await buildTestApp({ SERVICE_LIMITS: 'card=1..9999999999999.99' })
    try {
      const m2 = await t2.merchant()
      const res = await t2.app.inject({
        method: 'POST',
        url: '/api/v1/invoices',
        headers: { 'content-type': 'application/json', 'x-api-key': m2.apiKey },
        payload: JSON.stringify({ order_id: 'BIG', amount: '9999999999999.99', currency: 'RUB' }),
      })
      expect(res.statusCode, res.body).toBe(201)
      const id = res.json().order_id
      expect(
        (
          await t2.app.inject({
            method: 'POST',
            url: `/pay/${id}/simulate`,
            headers: { 'content-type': 'application/json' },
            payload: '{"outcome":"paid"}',
          })
        ).statusCode,
      ).toBe(200)
      const info = await t2.app.inject({ url: `/api/v1/invoices/${id}`, headers: { 'x-api-key': m2.apiKey } })
      expect(info.body).toContain('"amount":9999999999999.99,')
      expect(info.body).toContain('"credited":9999999999999.99,')
    } finally {
      await t2.close()
    }
  })

  it('when the same order_id is sent again with the same amount, currency and service, then 200 with the same invoice and is_new false', async () => {
    const first = (await create({ order_id: 'A-3', amount: '10.00', currency: 'EUR' })).json()
    const again = await create({
      order_id: 'A-3',
      amount: 10,
      currency: 'eur',
      comment: 'ignored',
      callback_url: 'https://other.example/h',
    })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({
      order_id: first.order_id,
      is_new: false,
      amount: '10.00',
      pay_url: first.pay_url,
    })
  })

  it('when the earlier invoice of an order expired, then a new invoice is created and getInfo by order_id returns the newest', async () => {
    const first = (await create({ order_id: 'A-4', amount: '10.00', currency: 'EUR', lifetime: 300 })).json()
    t.clock.advance(301)
    const second = await create({ order_id: 'A-4', amount: '12.00', currency: 'EUR' })
    expect(second.statusCode).toBe(201)
    expect(second.json().is_new).toBe(true)
    expect(second.json().order_id).not.toBe(first.order_id)
    const info = await t.app.inject({
      url: `/api/invoice/getInfo?merchant_id=${m.id}&order_id=A-4`,
      headers: { 'x-api-key': m.apiKey },
    })
    expect(info.json().id).toBe(second.json().order_id)
    const old = await t.app.inject({
      url: `/api/invoice/getInfo?merchant_id=${m.id}&invoice_id=${first.order_id}`,
      headers: { 'x-api-key': m.apiKey },
    })
    expect(old.json().status).toBe('expired')
    // the stale invoice was expired in the database together with its outbox event
    const events = await t.rt.store.events.listByInvoice(first.order_id)
    expect(events.map((e) => e.type)).toEqual(['invoice.expired'])
  })

  it("when no service is given, then the merchant's default service is used", async () => {
    const sbp = await t.merchant('SBP shop', 'sbp')
    const res = await create({ order_id: 'A-5', amount: 1, currency: 'RUB' }, sbp.apiKey)
    const info = await t.app.inject({
      url: `/api/invoice/getInfo?merchant_id=${sbp.id}&order_id=A-5`,
      headers: { 'x-api-key': sbp.apiKey },
    })
    expect(res.statusCode).toBe(201)
    expect(info.json().service).toBe('sbp')
  })

  it('when lifetime is given, then expired_at is that many seconds after created_at', async () => {
    const res = (await create({ order_id: 'A-6', amount: 1, currency: 'RUB', lifetime: 900 })).json()
    const info = (
      await t.app.inject({ url: `/api/v1/invoices/${res.order_id}`, headers: { 'x-api-key': m.apiKey } })
    ).json()
    expect(new Date(info.expired_at).getTime() - new Date(info.created_at).getTime()).toBe(900_000)
    expect(info.created_at).toBe('2026-11-22T10:00:00.000Z')
  })

  it('when an invoice is created, then its QR image is served at qr_url and decodes to qr_data', async () => {
    const res = (await create({ order_id: 'A-7', amount: 1, currency: 'RUB' })).json()
    const png = await t.app.inject({ url: new URL(res.qr_url).pathname })
    expect(png.statusCode).toBe(200)
    expect(png.headers['content-type']).toBe('image/png')
    expect(decodeQr(png.rawPayload)).toBe(res.pay_url)
  })

  it('when the charset is given with the JSON content type, then the body is accepted', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-api-key': m.apiKey },
      payload: JSON.stringify({ order_id: 'A-8', amount: 1, currency: 'RUB' }),
    })
    expect(res.statusCode).toBe(201)
  })
})
