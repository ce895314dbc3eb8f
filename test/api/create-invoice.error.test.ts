import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, unchecked, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

describe('POST /api/v1/invoices — errors', () => {
  let t: TestApp
  let m: TestMerchant
  let shop: TestClient
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    shop = api(t).as(m)
  })
  afterEach(async () => t.close())

  /** The body as written, with the merchant's key: for what the JSON parser and the content type decide. */
  const post = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    shop.raw({
      method: 'POST',
      url: '/api/v1/invoices',
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    })
  const create = (body: Record<string, unknown>) => shop.createInvoice(unchecked(body))

  const countInvoices = async () =>
    (await t.rt.store.invoices.list({ merchantId: m.id as never, limit: 1000, now: t.clock.now() })).length

  it('when a field is unknown, then 400 validation_failed naming it and nothing is created', async () => {
    const p = expectProblem(
      await create({ order_id: 'E1', amount: 1, currency: 'RUB', callbak_url: 'https://x.example' }),
      400,
      'validation_failed',
    )
    expect(p.errors).toEqual([{ field: 'callbak_url', message: 'is not a known field' }])
    expect(p.detail).toContain('callbak_url')
    expect(await countInvoices()).toBe(0)
  })

  it('when required fields are missing, then each is named', async () => {
    const p = expectProblem(await create({ comment: 'x' }), 400, 'validation_failed')
    expect(p.errors?.map((e) => e.field).sort()).toEqual(['amount', 'currency', 'order_id'])
  })

  it.each([
    ['"100.500" for RUB', { amount: '100.500', currency: 'RUB' }, 'amount', 'at most 2 decimal places for RUB'],
    ['a negative number', { amount: -5, currency: 'RUB' }, 'amount', 'positive'],
    ['zero', { amount: 0, currency: 'RUB' }, 'amount', 'greater than 0'],
    ['an exponent', { amount: '1e3', currency: 'RUB' }, 'amount', 'no sign, spaces or exponent'],
    ['a signed string', { amount: '+10', currency: 'RUB' }, 'amount', 'no sign'],
    ['spaces', { amount: ' 10', currency: 'RUB' }, 'amount', 'no sign'],
    ['a boolean', { amount: true, currency: 'RUB' }, 'amount', 'must be a number or a string'],
    // a string branch's own rule, not the number branch's "must be a number"
    [
      'a 65-character decimal string',
      { amount: `${'0'.repeat(64)}1`, currency: 'RUB' },
      'amount',
      'must be at most 64 characters',
    ],
    ['below the minimum', { amount: '0.99', currency: 'RUB' }, 'amount', 'between 1.00 and 1000000.00'],
    ['above the maximum', { amount: '1000000.01', currency: 'RUB' }, 'amount', 'between'],
    ['a huge number', { amount: 1e300, currency: 'RUB' }, 'amount', ''],
    ['a disabled currency', { amount: 1, currency: 'GBP' }, 'currency', 'enabled'],
    ['a non-currency', { amount: 1, currency: 'XYZ' }, 'currency', 'enabled'],
    ['an unknown service', { amount: 1, currency: 'RUB', service: 'cash' }, 'service', 'card, sbp'],
    [
      'an http callback',
      { amount: 1, currency: 'RUB', callback_url: 'http://shop.example/h' },
      'callback_url',
      'https',
    ],
    ['a relative callback', { amount: 1, currency: 'RUB', callback_url: '/hook' }, 'callback_url', 'absolute'],
    [
      'a javascript: success_url',
      { amount: 1, currency: 'RUB', success_url: 'javascript:alert(1)' },
      'success_url',
      'absolute',
    ],
    ['a too long comment', { amount: 1, currency: 'RUB', comment: 'x'.repeat(1025) }, 'comment', '1024'],
    ['a too long order_id', { amount: 1, currency: 'RUB', order_id: 'o'.repeat(129) }, 'order_id', '128'],
    ['an empty order_id', { amount: 1, currency: 'RUB', order_id: '' }, 'order_id', ''],
    ['a control character in order_id', { amount: 1, currency: 'RUB', order_id: 'a\u0007b' }, 'order_id', 'control'],
    ['a numeric order_id', { amount: 1, currency: 'RUB', order_id: 12 }, 'order_id', 'string'],
    ['a lifetime below the bound', { amount: 1, currency: 'RUB', lifetime: 10 }, 'lifetime', '300'],
    ['a lifetime above the bound', { amount: 1, currency: 'RUB', lifetime: 2_592_001 }, 'lifetime', '2592000'],
    ['a fractional lifetime', { amount: 1, currency: 'RUB', lifetime: 400.5 }, 'lifetime', 'must be an integer'],
    [
      'a too long callback_url',
      { amount: 1, currency: 'RUB', callback_url: `https://a.example/${'x'.repeat(2040)}` },
      'callback_url',
      '2048',
    ],
  ])('when the body has %s, then 400 validation_failed on that field', async (_name, fields, field, message) => {
    const p = expectProblem(await create({ order_id: 'E2', ...fields }), 400, 'validation_failed')
    const err = p.errors?.find((e) => e.field === field)
    expect(err, JSON.stringify(p.errors)).toBeDefined()
    expect(err?.message).toContain(message)
    expect(await countInvoices()).toBe(0)
  })

  it('when the JSON is malformed, then 400 invalid_json', async () => {
    expectProblem(await post('{"order_id": "x", '), 400, 'invalid_json')
  })

  it('when the body is empty, then 400 invalid_json', async () => {
    expectProblem(await post(''), 400, 'invalid_json')
  })

  it.each([
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"x"'],
  ])('when the body is %s, then 400 validation_failed', async (_name, body) => {
    expectProblem(await post(body), 400, 'validation_failed')
  })

  it.each([
    ['__proto__', '"__proto__":{"admin":true}', '__proto__'],
    ['__proto__ written with escapes', '"\\u005f_proto__":{"admin":true}', '__proto__'],
    ['constructor.prototype', '"constructor":{"prototype":{"admin":true}}', 'constructor'],
  ])(
    'when the body carries %s, then 400 validation_failed names it as an unknown field and nothing is created',
    async (_name, member, field) => {
      const p = expectProblem(
        await post(`{"order_id":"P","amount":1,"currency":"RUB",${member}}`),
        400,
        'validation_failed',
      )
      expect(p.errors).toEqual([{ field, message: 'is not a known field' }])
      expect(await countInvoices()).toBe(0)
    },
  )

  it('when __proto__ sits 7,000 levels deep, then it is still a 400 naming it, never a 500', async () => {
    const depth = 7000
    const p = expectProblem(
      await post(
        `{"order_id":"P","amount":1,"currency":"RUB","x":${'['.repeat(depth)}{"__proto__":1}${']'.repeat(depth)}}`,
      ),
      400,
      'validation_failed',
    )
    expect(p.errors?.[0]?.field).toBe(`x${'[0]'.repeat(depth)}.__proto__`)
    // as deep beside a numeric amount (read again for its text) or a string one: a 400, never a 500
    for (const amount of ['1', '"1.00"']) {
      const res = await post(
        `{"order_id":"P","amount":${amount},"currency":"RUB","x":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      )
      expect(res.status, res.text).toBe(400)
    }
    expect(await countInvoices()).toBe(0)
  })

  // The amount as a JSON number is checked as the client wrote it (docs/api.md#create-an-invoice), not as the double it parses to.
  it.each([
    ['more decimals than a double holds', '123456.789999999999999', 'at most 2 decimal places for RUB'],
    ['"100.500" written as a number', '100.500', 'at most 2 decimal places for RUB'],
    ['an exponent', '1e2', 'without exponent'],
    ['an exponent with a fraction', '1.5E+2', 'without exponent'],
    ['a negative zero', '-0', 'without exponent'],
  ])(
    'when the amount is a JSON number with %s, then 400 validation_failed on amount and nothing is created',
    async (_name, amount, message) => {
      const p = expectProblem(
        await post(`{"order_id":"N","amount":${amount},"currency":"RUB"}`),
        400,
        'validation_failed',
      )
      expect(p.errors).toEqual([{ field: 'amount', message: expect.stringContaining(message) }])
      expect(await countInvoices()).toBe(0)
    },
  )

  it.each([
    ['100.5', '100.50'],
    ['100.50', '100.50'],
    ['7', '7.00'],
    ['999999.99', '999999.99'],
  ])(
    "when a JSON number amount is written with at most the currency's decimals (%s), then it is taken exactly",
    async (written, stored) => {
      const res = await post(`{"order_id":"OK","amount":${written},"currency":"RUB"}`)
      expectStatus(res, 201)
      expect(res.body.amount).toBe(stored)
    },
  )

  it.each([
    ['amount, as two numbers', '{"order_id":"D","amount":5,"amount":7,"currency":"RUB"}', 'amount'],
    ['amount, as two strings apart', '{"order_id":"D","amount":"1.00","currency":"RUB","amount":"1000.00"}', 'amount'],
    [
      'order_id, once written with an escape',
      '{"order_id":"D","amount":"1.00","currency":"RUB","order\\u005fid":"E"}',
      'order_id',
    ],
  ])(
    'when a key is given twice (%s), then 400 invalid_json naming it and nothing is created: which one is meant is not guessed',
    async (_name, body, key) => {
      const p = expectProblem(await post(body), 400, 'invalid_json')
      expect(p.detail).toBe(`the key "${key}" is given twice in one object`)
      expect(await countInvoices()).toBe(0)
    },
  )

  it('when the body is not valid UTF-8, then 400 invalid_json and nothing is created', async () => {
    const body = Buffer.concat([
      Buffer.from('{"order_id":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('","amount":"5.00","currency":"RUB"}'),
    ])
    expect(expectProblem(await post(body), 400, 'invalid_json').detail).toBe('the body is not valid UTF-8')
    expect(await countInvoices()).toBe(0)
  })

  it.each([
    ['order_id', '{"order_id":"X\\ud800","amount":"5.00","currency":"RUB"}'],
    ['comment', '{"order_id":"X","amount":"5.00","currency":"RUB","comment":"a\\udfffb"}'],
  ])(
    'when %s holds half of a surrogate pair, then 400 validation_failed on it and nothing is created',
    async (field, body) => {
      const p = expectProblem(await post(body), 400, 'validation_failed')
      expect(p.errors).toEqual([{ field, message: expect.stringContaining('surrogate') }])
      expect(await countInvoices()).toBe(0)
    },
  )

  it('when order_id holds a whole surrogate pair, then it is one character, and welcome', async () => {
    expectStatus(await post('{"order_id":"X\\ud83d\\udc4d","amount":"5.00","currency":"RUB"}'), 201)
  })

  it('when the body is larger than 16 KiB, then 413 payload_too_large', async () => {
    expectProblem(
      await create({ order_id: 'big', amount: 1, currency: 'RUB', comment: 'x'.repeat(17 * 1024) }),
      413,
      'payload_too_large',
    )
  })

  it.each([
    ['a form', 'application/x-www-form-urlencoded', 'order_id=1'],
    ['text', 'text/plain', '{"order_id":"1"}'],
  ])('when the content type is %s, not JSON, then 415 unsupported_media_type', async (_name, type, payload) => {
    expectProblem(await post(payload, { 'content-type': type }), 415, 'unsupported_media_type')
  })

  it.each([
    ['amount', { amount: '11.00' }],
    ['currency', { currency: 'USD' }],
    ['service', { service: 'sbp' }],
  ])(
    'when the same order_id comes with another %s, then 409 order_id_conflict and the first invoice is unchanged',
    async (_name, change) => {
      const first = await shop.newInvoice({ order_id: 'C1', amount: '10.00', currency: 'RUB' })
      const p = expectProblem(
        await shop.createInvoice({ order_id: 'C1', amount: '10.00', currency: 'RUB', ...change }),
        409,
        'order_id_conflict',
      )
      expect(p.detail).toContain('cancel it first')
      const info = await shop.getInvoice(first)
      expectStatus(info, 200)
      expect(info.body).toMatchObject({ amount: 10, currency: 'RUB', service: 'card', status: 'pending' })
      expect(await countInvoices()).toBe(1)
    },
  )

  it('when a paid order_id comes with another amount, then 409 order_id_conflict says a new order_id is needed (a paid invoice cannot be cancelled)', async () => {
    const first = await shop.newInvoice({ order_id: 'C2', amount: '10.00', currency: 'RUB' })
    expectStatus(await shop.simulate(first, { outcome: 'paid' }), 200)
    const p = expectProblem(
      await shop.createInvoice({ order_id: 'C2', amount: '11.00', currency: 'RUB' }),
      409,
      'order_id_conflict',
    )
    expect(p.detail).toContain('new order_id')
    expect(p.detail).not.toContain('cancel')
  })

  it('when an unknown route is called, then 404 not_found as a problem', async () => {
    const res = await api(t).raw({ url: '/api/v1/nope' })
    expectProblem(res, 404, 'not_found')
    expect(res.headers['x-request-id']).toBeTruthy()
  })

  it('when the amount uses a currency the service does not support, then 400 on currency', async () => {
    const t2 = await buildTestApp({ SERVICES: 'card,sbp:RUB' })
    try {
      const res = await api(t2)
        .as(await t2.merchant())
        .createInvoice({ order_id: 'S', amount: 1, currency: 'USD', service: 'sbp' })
      const p = expectProblem(res, 400, 'validation_failed')
      expect(p.errors?.[0]).toEqual({ field: 'currency', message: 'USD is not supported by service sbp' })
    } finally {
      await t2.close()
    }
  })
})
