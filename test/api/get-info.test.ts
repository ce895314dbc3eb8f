import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

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
  let shop: TestClient
  let invoiceId: string
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    shop = api(t).as(m)
    invoiceId = await shop.newInvoice({ order_id: 'G-1', amount: '250.75', currency: 'RUB', lifetime: 600 })
  })
  afterEach(async () => t.close())

  it('when read by invoice_id, then exactly the 13 fields of the original API, with their types', async () => {
    const res = await shop.getInfo({ merchant_id: m.id, invoice_id: invoiceId })
    expectStatus(res, 200)
    const inv = res.body
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
    const res = await shop.getInfo({ merchant_id: m.id, order_id: 'G-1' })
    expectStatus(res, 200)
    expect(res.body.id).toBe(invoiceId)
  })

  it('when the order_id needs URL encoding, then it is found', async () => {
    await shop.newInvoice({ order_id: 'заказ #7 & co', amount: 1, currency: 'RUB' })
    const res = await shop.getInfo({ merchant_id: m.id, order_id: 'заказ #7 & co' })
    expectStatus(res, 200)
    expect(res.body.order_id).toBe('заказ #7 & co')
  })

  describe.each([
    ['bytes that are not UTF-8', '%FF%FE'],
    ['a lone %', '100%'],
    ['a % not followed by two hex digits', '%zz'],
  ])('an order_id with %s in its percent-encoding', (_name, raw) => {
    // an order whose id is the text as written: the query parser kept malformed encodings so and found it
    beforeEach(async () => {
      await shop.newInvoice({ order_id: raw, amount: 1, currency: 'RUB' })
    })

    it('when order_id is sent so encoded, then 400 validation_failed naming it, even when an order holds that text literally', async () => {
      const p = expectProblem(await shop.getInfo(`merchant_id=${m.id}&order_id=${raw}`), 400, 'validation_failed')
      expect(p.errors).toEqual([{ field: 'order_id', message: 'is not validly percent-encoded' }])
    })

    it('when order_id is written correctly beside a malformed parameter the route does not have, then the order is found', async () => {
      const ok = await shop.getInfo(`merchant_id=${m.id}&order_id=${encodeURIComponent(raw)}&utm=%FF`)
      expectStatus(ok, 200)
      expect(ok.body.order_id).toBe(raw)
    })
  })

  it('when order_id is not validly percent-encoded and the key is missing, then the key is checked first: 401', async () => {
    expectProblem(await api(t).getInfo(`merchant_id=${m.id}&order_id=%FF`), 401, 'missing_api_key')
  })

  it("when order_id is not validly percent-encoded and merchant_id is another's, then the query (400) comes before merchant_id is compared (403)", async () => {
    const other = '0193a0ff-0000-7000-8000-000000000000'
    const p = expectProblem(await shop.getInfo(`merchant_id=${other}&order_id=%FF`), 400, 'validation_failed')
    expect(p.errors).toMatchObject([{ field: 'order_id' }])
  })

  it('when a filter of the invoice list is not validly percent-encoded, then 400 validation_failed naming it', async () => {
    const p = expectProblem(await shop.listInvoices('status=pa%ZZid'), 400, 'validation_failed')
    expect(p.errors).toMatchObject([{ field: 'status' }])
  })

  it('when a filter of the delivery log is not validly percent-encoded, then 400 validation_failed naming it', async () => {
    const p = expectProblem(await shop.listDeliveries('invoice_id=%E0%A4'), 400, 'validation_failed')
    expect(p.errors).toMatchObject([{ field: 'invoice_id' }])
  })

  it('when a pending invoice is past expired_at, then it reads expired', async () => {
    const status = async () => {
      const res = await shop.getInfo({ merchant_id: m.id, invoice_id: invoiceId })
      expectStatus(res, 200)
      return res.body.status
    }
    t.clock.advance(599)
    expect(await status()).toBe('pending')
    t.clock.advance(1)
    expect(await status()).toBe('expired')
  })

  it('when unknown query parameters are sent, then they are ignored', async () => {
    expectStatus(await shop.getInfo(`merchant_id=${m.id}&invoice_id=${invoiceId}&utm=1`), 200)
  })

  it('when both identifiers are given, then 400 ambiguous_identifier', async () => {
    const res = await shop.getInfo({ merchant_id: m.id, invoice_id: invoiceId, order_id: 'G-1' })
    expectProblem(res, 400, 'ambiguous_identifier')
  })

  it('when neither identifier is given, then 400 validation_failed', async () => {
    expectProblem(await shop.getInfo({ merchant_id: m.id }), 400, 'validation_failed')
  })

  it.each([
    ['merchant_id is not a UUID', () => `merchant_id=abc&invoice_id=${invoiceId}`, 'merchant_id'],
    ['merchant_id is missing', () => `invoice_id=${invoiceId}`, 'merchant_id'],
    ['invoice_id is not a UUID', () => `merchant_id=${m.id}&invoice_id=123`, 'invoice_id'],
    ['merchant_id is repeated', () => `merchant_id=${m.id}&merchant_id=${m.id}&invoice_id=${invoiceId}`, 'merchant_id'],
  ])('when %s, then 400 validation_failed naming it', async (_n, query, field) => {
    const p = expectProblem(await shop.getInfo(query()), 400, 'validation_failed')
    expect(p.errors?.map((e) => e.field)).toContain(field)
  })

  it('when the invoice does not exist, then 404 invoice_not_found', async () => {
    const res = await shop.getInfo({ merchant_id: m.id, invoice_id: '00000000-0000-7000-8000-000000000000' })
    expectProblem(res, 404, 'invoice_not_found')
  })

  it('when no invoice has the order_id, then 404 invoice_not_found', async () => {
    expectProblem(await shop.getInfo({ merchant_id: m.id, order_id: 'nope' }), 404, 'invoice_not_found')
  })

  it('when the key is missing, then 401 before the query is looked at', async () => {
    expectProblem(await api(t).getInfo({ merchant_id: 'bad' }), 401, 'missing_api_key')
  })

  it("when merchant_id is another merchant's, then 403 merchant_mismatch", async () => {
    const other = await t.merchant('Other')
    expectProblem(await shop.getInfo({ merchant_id: other.id, invoice_id: invoiceId }), 403, 'merchant_mismatch')
  })

  it.each([
    ['by id', () => ({ invoice_id: invoiceId })],
    ['by order_id', () => ({ order_id: 'G-1' })],
  ])(
    "when another merchant asks for this merchant's invoice %s with its own merchant_id, then 404",
    async (_name, identifier) => {
      const other = await t.merchant('Other')
      const res = await api(t)
        .as(other)
        .getInfo({ merchant_id: other.id, ...identifier() })
      expectProblem(res, 404, 'invoice_not_found')
    },
  )
})
