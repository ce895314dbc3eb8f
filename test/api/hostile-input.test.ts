import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_STATUS } from '../../src/domain/errors.js'
import { api, expectStatus, type Answer, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

/**
 * Hostile input through the real app (issue #6): whatever a client sends to the create, getInfo and simulate
 * endpoints, the answer is a 2xx (or the form post's 303) or a problem document (docs/api.md#errors), never a 5xx; a refused request changes
 * nothing; and the app keeps answering.
 */

const RUNS = 1000
const TIMEOUT = 120_000
const CODES_4XX = Object.entries(ERROR_STATUS).filter(([, s]) => s >= 400 && s < 500)

const OWN_ORIGIN = 'http://pay.test'

/** encodeURIComponent that never throws: a lone surrogate goes out as U+FFFD (raw bad UTF-8 is generated separately). */
const enc = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('')
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\u0007',
  '\r\n',
  '\t',
  '\ud800',
  '\udfff',
  '\u202e',
  '\ufeff',
  '\u2028',
  '𝟘𝟙',
  '👍🏽',
  'Ω≈ç√',
  'ﷺ',
  '٣',
  '<script>alert(1)</script>',
  "'; DROP TABLE invoices; --",
  '${7*7}',
  '%00',
  '%',
  '%zz',
  '..%2f',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e3',
  '0x10',
  '１００',
  '100,00',
  '100.',
  '.5',
  '00001',
  '1_000',
]

const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.string({ unit: 'grapheme', maxLength: 32 }),
  fc.string({
    unit: fc.constantFrom('\u0000', '\u001f', '\u007f', '\u0085', 'a', '€', '\ud83d', '\ude00'),
    maxLength: 16,
  }),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
)

const anything: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
  fc.constantFrom(null, true, false, 0, -0, -1, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, [], {}),
)

const amount: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    1,
    100,
    '100.00',
    '1234.50',
    1_000_000,
    '1000000.00',
    '1',
    100.5,
    '0.99',
    '1000000.01',
    0,
    -5,
    '-5',
    '+5',
    ' 5',
    '5 ',
    '1e3',
    1e3,
    1e21,
    1e300,
    '9'.repeat(400),
    `1.${'0'.repeat(300)}`,
    '100.500',
    '0x64',
    'NaN',
  ),
  fc.integer(),
  fc.double(),
  fc.double({ noNaN: true, min: -1e6, max: 2e6 }),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}.${b}`),
  anything,
)

const currency: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('RUB', 'rub', 'Rub', 'USD', 'EUR', 'JPY', 'GBP', 'XYZ', 'RUB ', 'RU', 'RUBB', 'ＲＵＢ'),
  anything,
)
const url: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    'https://shop.example/h',
    'http://shop.example/h',
    'javascript:alert(1)',
    'https://',
    '//x',
    '/rel',
    'https://[::1]/',
    'https://xn--80ak6aa92e.example/',
    `https://a.example/${'x'.repeat(3000)}`,
  ),
  fc.webUrl(),
  anything,
)

/** A create body: mostly the real fields with valid-looking or random values, plus sometimes fields of its own. */
const createBody: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.record(
      {
        order_id: fc.oneof(fc.constantFrom('H-1', 'H-2', 'H-3', 'H-4'), nastyString, anything),
        amount,
        currency,
        comment: fc.oneof(nastyString, anything),
        service: fc.oneof(fc.constantFrom('card', 'sbp', 'CARD', 'cash', ''), anything),
        callback_url: url,
        success_url: url,
        fail_url: url,
        lifetime: fc.oneof(fc.constantFrom(300, 3600, 299, 2_592_001, 400.5, '3600', -1), anything),
      },
      { requiredKeys: [] },
    ),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant({}) },
      {
        weight: 1,
        arbitrary: fc.dictionary(
          fc.oneof(nastyString, fc.constantFrom('__proto__', 'constructor', 'prototype', 'callbak_url', 'Amount')),
          anything,
          { maxKeys: 4 },
        ),
      },
    ),
  )
  .map(([fields, extra]) => ({ ...extra, ...fields }))

/** A valid body with at most a couple of its fields (or extra ones) replaced by hostile values. */
const nearlyValidBody: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.record({
      order_id: fc.oneof(
        fc.constantFrom('H-1', 'H-2', 'H-3', 'H-4'),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
      ),
      amount: fc.constantFrom(1, 100, '100.00', '100', 999_999.99, '1000000.00', 12.5),
      currency: fc.constantFrom('RUB', 'rub', 'USD', 'EUR'),
    }),
    createBody.chain((b) => fc.subarray(Object.entries(b), { maxLength: 2 })),
  )
  .map(([base, overrides]) => ({ ...base, ...Object.fromEntries(overrides) }))

const anyCreateBody = fc.oneof(createBody, nearlyValidBody)

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      '',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'application/json;',
      'application/jsonx',
      'application/problem+json',
      'text/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '*/*',
      ';',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,40}$/) },
)

/** What goes on the wire: the JSON of a body, a random JSON value, broken JSON or raw bytes. */
const payloadOf = (body: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string | Buffer> =>
  fc.oneof(
    { weight: 6, arbitrary: body.map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: body.chain((b) => {
        const s = JSON.stringify(b)
        return fc.nat({ max: s.length }).map((n) => s.slice(0, n))
      }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((a) => Buffer.from(a)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'null',
        '[]',
        '"x"',
        '{',
        '{"amount":1,"amount":2}',
        '\ufeff{}',
        `{"a":${'['.repeat(5000)}`,
        `{"comment":"${'x'.repeat(17_000)}"}`,
      ),
    },
  )

describe('hostile input (issue #6): never a 5xx, refusals change nothing', () => {
  let t: TestApp
  let m: TestMerchant
  /** The merchant's client; `buyer`, the payment page's (no key). */
  let shop: TestClient
  let buyer: TestClient
  let invoiceId: string
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT_BURST: '1000000', RATE_LIMIT_RPS: '1000000' })
    m = await t.merchant('Hostile')
    shop = api(t).as(m)
    buyer = api(t)
    invoiceId = await shop.newInvoice({ order_id: 'known', amount: 10, currency: 'RUB' })
  })
  afterAll(async () => t.close())

  const countInvoices = async () =>
    (await t.rt.store.invoices.list({ merchantId: m.id as never, limit: 1_000_000, now: t.clock.now() })).length

  /** A 4xx is a problem document (docs/api.md#errors) whose code belongs to its status; nothing is a 5xx. */
  const expectWellFormed = (res: Answer, allow3xx = false): void => {
    const ok = (res.status >= 200 && res.status < 300) || (allow3xx && res.status === 303)
    if (ok) return
    expect(res.status, res.text).toBeGreaterThanOrEqual(400)
    expect(res.status, res.text).toBeLessThan(500)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const p = res.body as { code: string; status: number }
    const known = CODES_4XX.find(([code]) => code === p.code)
    expect(known, res.text).toBeDefined()
    expect(known?.[1]).toBe(res.status)
    expect(p.status).toBe(res.status)
  }

  const expectAlive = async (): Promise<void> => expectStatus(await buyer.healthz(), 200)

  it('create: random bodies, content types and bytes', { timeout: TIMEOUT }, async () => {
    let expected = await countInvoices()
    const seen = new Set<number>()
    await fc.assert(
      fc.asyncProperty(payloadOf(anyCreateBody), contentType, async (payload, type) => {
        const headers: Record<string, string> = {}
        if (type !== undefined) headers['content-type'] = type
        const res = await shop.raw({ method: 'POST', url: '/api/v1/invoices', headers, payload })
        seen.add(res.status)
        expectWellFormed(res)
        if (res.status === 201) expected += 1
        else if (res.status !== 200) expect(await countInvoices()).toBe(expected)
        await expectAlive()
      }),
      // one case of each status among them for certain, so the spread check below never depends on the seed: a new
      // order (201), the known order with another amount (409), no order_id (400), over 16 KiB (413), text (415)
      {
        numRuns: RUNS,
        examples: [
          [JSON.stringify({ order_id: 'hostile-example', amount: 10, currency: 'RUB' }), 'application/json'],
          [JSON.stringify({ order_id: 'known', amount: 11, currency: 'RUB' }), 'application/json'],
          [JSON.stringify({ amount: 10, currency: 'RUB' }), 'application/json'],
          [`{"comment":"${'x'.repeat(17_000)}"}`, 'application/json'],
          ['{}', 'text/plain'],
        ],
      },
    )
    expect(await countInvoices()).toBe(expected)
    // the generators reach past the first gate: accepted, replayed, refused by validation, type and size
    for (const code of [201, 400, 409, 413, 415]) expect(seen, `statuses seen: ${[...seen].join(', ')}`).toContain(code)
  })

  it('getInfo: random query strings (keys, values, repeats, encodings)', { timeout: TIMEOUT }, async () => {
    const key = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('merchant_id', 'invoice_id', 'order_id') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'lang',
          'merchant_id[]',
          'invoice_id[0]',
          'order_id[a]',
          '__proto__',
          'constructor',
          'MERCHANT_ID',
          '',
          'a.b',
        ),
      },
      { weight: 1, arbitrary: nastyString.map(enc) },
    )
    const value = fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .constantFrom(m.id, invoiceId, 'known', m.id.toUpperCase(), '00000000-0000-7000-8000-000000000000')
          .map(enc),
      },
      { weight: 1, arbitrary: fc.uuid().map(String) },
      { weight: 2, arbitrary: nastyString.map(enc) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          '%',
          '%zz',
          '%00',
          '%C0%AF',
          '%E0%A4%A',
          '%ED%A0%80',
          '+',
          '%2B',
          '%26',
          '%3D',
          'a+b',
          '%25',
        ),
      },
    )
    const pair = fc.oneof(
      { weight: 8, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}=${v}`) },
      { weight: 1, arbitrary: key },
      { weight: 1, arbitrary: fc.constantFrom('', '=', '==', '&', '?', '#x', ';') },
    )
    const seen = new Set<number>()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('', `merchant_id=${m.id}&order_id=known&`, `merchant_id=${m.id}&invoice_id=${invoiceId}&`),
        fc.array(pair, { maxLength: 8 }),
        async (valid, pairs) => {
          const res = await shop.raw({ url: `/api/invoice/getInfo?${valid}${pairs.join('&')}` })
          seen.add(res.status)
          expectWellFormed(res)
          if (res.status === 200) expect(res.body.merchant_id).toBe(m.id)
          await expectAlive()
        },
      ),
      // one case of each status among them for certain, so the spread check below never depends on the seed:
      // an unknown invoice (404), another merchant's id (403), no merchant_id (400), the invoice itself (200)
      {
        numRuns: RUNS,
        examples: [
          [`merchant_id=${m.id}&`, ['invoice_id=00000000-0000-7000-8000-000000000000']],
          ['', ['merchant_id=00000000-0000-7000-8000-000000000000', `invoice_id=${invoiceId}`]],
          ['', [`invoice_id=${invoiceId}`]],
          [`merchant_id=${m.id}&invoice_id=${invoiceId}&`, []],
        ],
      },
    )
    for (const code of [200, 400, 403, 404]) expect(seen, `statuses seen: ${[...seen].join(', ')}`).toContain(code)
  })

  it('simulate: random JSON and form bodies on a fresh invoice', { timeout: TIMEOUT }, async () => {
    let n = 0
    const outcome = fc.oneof(
      fc.constantFrom('paid', 'hold', 'failed', 'PAID', 'Paid', 'expired', 'pending', ' paid', 'paid\u0000', ''),
      anything,
    )
    const jsonBody = fc
      .tuple(
        fc.record({ outcome }, { requiredKeys: [] }),
        fc.oneof(
          { weight: 3, arbitrary: fc.constant({}) },
          { weight: 1, arbitrary: fc.dictionary(nastyString, anything, { maxKeys: 3 }) },
        ),
      )
      .map(([a, b]) => ({ ...b, ...a }))
    const formField = fc.oneof(
      fc.constantFrom(
        'outcome=paid',
        'outcome=hold',
        'outcome=failed',
        'outcome=',
        'outcome',
        'outcome[]=paid',
        'outcome=paid&outcome=hold',
        'outcome=%70aid',
        'outcome=pa%00id',
        'outcome=%',
        'x=1',
      ),
      fc.tuple(fc.constantFrom('outcome', 'lang', 'x'), nastyString).map(([k, v]) => `${k}=${enc(v)}`),
      nastyString,
    )
    const form = fc.array(formField, { minLength: 1, maxLength: 4 }).map((f) => f.join('&'))
    const request = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          type: fc.constantFrom('application/json', 'application/json; charset=utf-8'),
          payload: payloadOf(jsonBody),
        }),
      },
      {
        weight: 4,
        arbitrary: fc.record({
          type: fc.constantFrom(
            'application/x-www-form-urlencoded',
            'application/x-www-form-urlencoded; charset=utf-8',
          ),
          payload: fc.oneof(
            { weight: 4, arbitrary: form },
            { weight: 1, arbitrary: fc.uint8Array({ maxLength: 128 }).map((a) => Buffer.from(a)) },
          ),
        }),
      },
      { weight: 1, arbitrary: fc.record({ type: contentType, payload: fc.oneof(form, payloadOf(jsonBody)) }) },
    )
    const target = fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
      { weight: 1, arbitrary: fc.oneof(fc.uuid().map(String), nastyString).map(enc) },
      // the router's own errors: malformed percent-encoding, a segment over its length limit (both were plain JSON)
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '%zz',
          '%',
          '%E0%A4%A',
          'a%2',
          'x'.repeat(101),
          `${'0'.repeat(36)}${'%41'.repeat(40)}`,
        ),
      },
    )
    const query = fc.oneof(
      fc.constant(''),
      fc.constantFrom('?lang=ru', '?lang=en', '?lang=', '?lang=ru&lang=en', '?lang[]=x', '?x=%zz'),
      nastyString.map((s) => `?lang=${enc(s)}`),
    )
    const origin = fc.constantFrom<Record<string, string>>(
      {},
      {},
      {},
      { origin: OWN_ORIGIN },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-origin' },
    )
    const before = fc.constantFrom<'hold' | 'paid' | 'failed' | undefined>(
      undefined,
      undefined,
      'hold',
      'paid',
      'failed',
    )
    const seen = new Set<number>()

    await fc.assert(
      fc.asyncProperty(request, target, query, origin, before, async (req, otherId, q, originHeaders, initial) => {
        n += 1
        const id = await shop.newInvoice({ order_id: `S-${n}`, amount: '10.00', currency: 'RUB' })
        if (initial !== undefined) expectStatus(await buyer.simulate(id, { outcome: initial }), 200)
        const statusBefore = (await t.rt.store.invoices.findById(id as never))?.status

        const headers: Record<string, string> = { ...originHeaders }
        if (req.type !== undefined) headers['content-type'] = req.type
        const res = await buyer.raw({
          method: 'POST',
          url: `/pay/${otherId ?? id}/simulate${q}`,
          headers,
          payload: req.payload,
        })
        seen.add(res.status)
        expectWellFormed(res, true)
        const statusAfter = (await t.rt.store.invoices.findById(id as never))?.status
        if (res.status >= 400 || otherId !== undefined) expect(statusAfter).toBe(statusBefore)
        await expectAlive()
      }),
      {
        numRuns: RUNS,
        // each answer the check below wants, for certain: random runs made a form the page takes (303) only rarely
        examples: [
          [{ type: 'application/x-www-form-urlencoded', payload: 'outcome=paid' }, undefined, '', {}, undefined],
          [{ type: 'application/json', payload: '{"outcome":"hold"}' }, undefined, '', {}, undefined],
        ],
      },
    )
    for (const code of [200, 303, 400, 404, 409, 415])
      expect(seen, `statuses seen: ${[...seen].join(', ')}`).toContain(code)
  })
})
