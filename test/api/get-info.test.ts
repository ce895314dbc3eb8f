import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, json, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

const SEED_FIELDS = [
  'amount',
  'created_at',
  'credited',
  'currency',
  'expired_at',
  'id',
  'merchant_id',
  'order_id',
  'paid_at',
  'qr_data',
  'service',
  'status',
  'url',
]
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('GET /api/invoice/getInfo', () => {
  let t: TestApp
  let m: TestMerchant
  let invoiceId: string
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      ...json({ order_id: 'G-1', amount: '250.75', currency: 'RUB', lifetime: 600 }),
      headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
    })
    invoiceId = res.json().order_id
  })
  afterEach(async () => t.close())

  const get = (query: string, key: string | null = m.apiKey) =>
    t.app.inject({ url: `/api/invoice/getInfo?${query}`, headers: key === null ? {} : { 'x-api-key': key } })

  it('when read by invoice_id, then exactly the 13 seed fields with the seed types', async () => {
    const res = await get(`merchant_id=${m.id}&invoice_id=${invoiceId}`)
    expect(res.statusCode).toBe(200)
    const inv = res.json()
    expect(Object.keys(inv).sort()).toEqual(SEED_FIELDS)
    expect(inv).toMatchObject({
      id: invoiceId,
      merchant_id: m.id,
      order_id: 'G-1',
      amount: 250.75,
      currency: 'RUB',
      status: 'pending',
      service: 'card',
      credited: null,
      paid_at: null,
    })
    expect(typeof inv.amount).toBe('number')
    expect(inv.url).toBe(`http://pay.test/pay/${invoiceId}`)
    expect(inv.qr_data).toBe(inv.url)
    expect(inv.created_at).toMatch(ISO_MS)
    expect(inv.expired_at).toMatch(ISO_MS)
  })

  it('when read by order_id, then the same invoice', async () => {
    const res = await get(`merchant_id=${m.id}&order_id=G-1`)
    expect(res.json().id).toBe(invoiceId)
  })

  it('when the order_id needs URL encoding, then it is found', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      ...json({ order_id: 'заказ #7 & co', amount: 1, currency: 'RUB' }),
      headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
    })
    const res = await get(`merchant_id=${m.id}&order_id=${encodeURIComponent('заказ #7 & co')}`)
    expect(res.statusCode).toBe(200)
    expect(res.json().order_id).toBe('заказ #7 & co')
  })

  it.each([
    ['bytes that are not UTF-8', '%FF%FE'],
    ['a lone %', '100%'],
    ['a % not followed by two hex digits', '%zz'],
  ])(
    'when order_id has %s in its percent-encoding, then 400 validation_failed naming it, even when an order holds that text literally',
    async (_name, raw) => {
      // an order whose id is the text as written: the query parser kept malformed encodings so and found it
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/invoices',
        ...json({ order_id: raw, amount: 1, currency: 'RUB' }),
        headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
      })
      const res = await get(`merchant_id=${m.id}&order_id=${raw}`)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'order_id', message: 'is not validly percent-encoded' }],
      })
      // written correctly, the same order is found; a malformed parameter the route does not have is ignored
      const ok = await get(`merchant_id=${m.id}&order_id=${encodeURIComponent(raw)}&utm=%FF`)
      expect(ok.statusCode).toBe(200)
      expect(ok.json().order_id).toBe(raw)
    },
  )

  it('when order_id is not validly percent-encoded, then the B4 order holds: the key first (401), then the query (400) before merchant_id is compared (403)', async () => {
    expect((await get(`merchant_id=${m.id}&order_id=%FF`, null)).json()).toMatchObject({
      status: 401,
      code: 'missing_api_key',
    })
    const other = '0193a0ff-0000-7000-8000-000000000000'
    expect((await get(`merchant_id=${other}&order_id=%FF`)).json()).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'order_id' }],
    })
  })

  it('when a list filter is not validly percent-encoded, then 400 validation_failed naming it', async () => {
    const invoices = await t.app.inject({ url: '/api/v1/invoices?status=pa%ZZid', headers: { 'x-api-key': m.apiKey } })
    expect(invoices.json()).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'status' }] })
    const deliveries = await t.app.inject({
      url: '/api/v1/webhooks/deliveries?invoice_id=%E0%A4',
      headers: { 'x-api-key': m.apiKey },
    })
    expect(deliveries.json()).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'invoice_id' }],
    })
  })

  it('when a pending invoice is past expired_at, then it reads expired', async () => {
    t.clock.advance(599)
    expect((await get(`merchant_id=${m.id}&invoice_id=${invoiceId}`)).json().status).toBe('pending')
    t.clock.advance(1)
    expect((await get(`merchant_id=${m.id}&invoice_id=${invoiceId}`)).json().status).toBe('expired')
  })

  it('when unknown query parameters are sent, then they are ignored', async () => {
    expect((await get(`merchant_id=${m.id}&invoice_id=${invoiceId}&utm=1`)).statusCode).toBe(200)
  })

  it('when both identifiers are given, then 400 ambiguous_identifier', async () => {
    const res = await get(`merchant_id=${m.id}&invoice_id=${invoiceId}&order_id=G-1`)
    expect(res.statusCode).toBe(400)
    expect(res.json().code).toBe('ambiguous_identifier')
  })

  it('when neither identifier is given, then 400 validation_failed', async () => {
    const res = await get(`merchant_id=${m.id}`)
    expect(res.statusCode).toBe(400)
    expect(res.json().code).toBe('validation_failed')
  })

  it.each([
    ['merchant_id is not a UUID', () => `merchant_id=abc&invoice_id=${invoiceId}`, 'merchant_id'],
    ['merchant_id is missing', () => `invoice_id=${invoiceId}`, 'merchant_id'],
    ['invoice_id is not a UUID', () => `merchant_id=${m.id}&invoice_id=123`, 'invoice_id'],
    ['merchant_id is repeated', () => `merchant_id=${m.id}&merchant_id=${m.id}&invoice_id=${invoiceId}`, 'merchant_id'],
  ])('when %s, then 400 validation_failed naming it', async (_n, query, field) => {
    const res = await get(query())
    expect(res.statusCode).toBe(400)
    expect(res.json().code).toBe('validation_failed')
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field)
  })

  it('when the invoice does not exist, then 404 invoice_not_found', async () => {
    const res = await get(`merchant_id=${m.id}&invoice_id=00000000-0000-7000-8000-000000000000`)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('invoice_not_found')
    expect((await get(`merchant_id=${m.id}&order_id=nope`)).json().code).toBe('invoice_not_found')
  })

  it('when the key is missing, then 401 before the query is looked at', async () => {
    const res = await get('merchant_id=bad', null)
    expect(res.statusCode).toBe(401)
    expect(res.json().code).toBe('missing_api_key')
  })

  it("when merchant_id is another merchant's, then 403 merchant_mismatch", async () => {
    const other = await t.merchant('Other')
    const res = await get(`merchant_id=${other.id}&invoice_id=${invoiceId}`)
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('merchant_mismatch')
  })

  it("when another merchant asks for this merchant's invoice with its own merchant_id, then 404 by id and by order_id", async () => {
    const other = await t.merchant('Other')
    expect((await get(`merchant_id=${other.id}&invoice_id=${invoiceId}`, other.apiKey)).json().code).toBe(
      'invoice_not_found',
    )
    expect((await get(`merchant_id=${other.id}&order_id=G-1`, other.apiKey)).json().code).toBe('invoice_not_found')
  })
})
