/**
 * The merchant's webhook endpoints (API.md C): the delivery log, redelivery and the test event; the address rules
 * for callback_url at creation (API.md B6); the webhook metrics; and that no secret reaches a log line.
 */
import { createHash } from 'node:crypto'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { rotateWebhookSecret } from '../../src/app/rotate-webhook-secret.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { sleep, startReceiver, type Receiver } from '../helpers/webhook-receiver.js'

const ENV = { CALLBACK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0,0.1,0.1' }

let t: TestApp
let m: TestMerchant
let rx: Receiver
const extra: (() => Promise<void>)[] = []

afterEach(async () => {
  await t?.close()
  await rx?.close()
  for (const close of extra.splice(0)) await close()
})

async function setup(env: Record<string, string> = ENV, logger?: pino.Logger): Promise<void> {
  rx = await startReceiver()
  t = await buildTestApp(env, { realClock: true, webhooks: true, ...(logger && { logger }) })
  m = await t.merchant()
  rx.secrets = [m.webhookSecret]
}

let n = 0
const post = (url: string, body: unknown, key = m.apiKey) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    payload: JSON.stringify(body),
  })

async function createInvoice(extraBody: Record<string, unknown> = {}, key = m.apiKey): Promise<string> {
  n += 1
  const res = await post(
    '/api/v1/invoices',
    { order_id: `WE-${n}`, amount: 10, currency: 'RUB', callback_url: rx.url, ...extraBody },
    key,
  )
  expect(res.statusCode, res.body).toBe(201)
  return res.json().order_id
}

const pay = async (id: string, outcome = 'paid') =>
  expect((await post(`/pay/${id}/simulate`, { outcome })).statusCode).toBe(200)
const list = (query = '', key = m.apiKey) =>
  t.app.inject({ url: `/api/v1/webhooks/deliveries${query}`, headers: { 'x-api-key': key } })
const retry = (id: string, key = m.apiKey) =>
  t.app.inject({ method: 'POST', url: `/api/v1/webhooks/deliveries/${id}/retry`, headers: { 'x-api-key': key } })

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (done(v)) return v
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(v)}`)
    await sleep(20)
  }
}

const settledLog = (query = '') =>
  until(
    async () =>
      (await list(query)).json().data as {
        id: string
        status: string
        attempts: unknown[]
        invoice_id: string
        type: string
      }[],
    (ds) => ds.length > 0 && ds.every((d) => d.status !== 'pending'),
  )

describe('GET /api/v1/webhooks/deliveries', () => {
  it('when deliveries exist, then the log lists them newest first with their attempts, pages with a cursor and filters', async () => {
    await setup()
    rx.respond = (h) => (h.json.data['order_id'] === `WE-${n}` ? 500 : 200) // the last invoice's endpoint fails
    const a = await createInvoice()
    await pay(a, 'hold')
    await pay(a, 'paid')
    const b = await createInvoice()
    await pay(b, 'failed')
    const all = await settledLog()
    expect(all.map((d) => [d.invoice_id, d.type, d.status])).toEqual([
      [b, 'invoice.failed', 'failed'],
      [a, 'invoice.paid', 'succeeded'],
      [a, 'invoice.hold', 'succeeded'],
    ])
    const first = (await list()).json().data[0]
    expect(Object.keys(first).sort()).toEqual(
      ['attempts', 'created_at', 'event_id', 'id', 'invoice_id', 'next_attempt_at', 'status', 'type', 'url'].sort(),
    )
    expect(first).toMatchObject({ url: rx.url, next_attempt_at: null })
    expect(first.attempts).toHaveLength(3)
    expect(first.attempts[0]).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status_code: 500,
      latency_ms: expect.any(Number),
      error: 'HTTP 500',
    })

    const page1 = (await list('?limit=2')).json()
    expect(page1.data.map((d: { id: string }) => d.id)).toEqual(all.slice(0, 2).map((d) => d.id))
    const page2 = (await list(`?limit=2&cursor=${page1.next_cursor}`)).json()
    expect(page2).toEqual({ data: [expect.objectContaining({ id: all[2]!.id })], next_cursor: null })

    expect((await list(`?invoice_id=${a}`)).json().data.map((d: { type: string }) => d.type)).toEqual([
      'invoice.paid',
      'invoice.hold',
    ])
    expect((await list('?status=failed')).json().data.map((d: { invoice_id: string }) => d.invoice_id)).toEqual([b])
    expect((await list('?status=pending')).json().data).toEqual([])
    // the template's parameters given empty are not given
    expect((await list('?invoice_id=&status=&limit=&cursor=')).json()).toEqual({
      data: all.map((d) => expect.objectContaining({ id: d.id })),
      next_cursor: null,
    })
    expect((await list(`?invoice_id=${a}&status=&limit=`)).json().data.map((d: { type: string }) => d.type)).toEqual([
      'invoice.paid',
      'invoice.hold',
    ])
  })

  it("when another merchant reads the log, then it sees none of this merchant's deliveries, even by invoice_id", async () => {
    await setup()
    const id = await createInvoice()
    await pay(id)
    await settledLog()
    const other = await t.merchant('Other')
    expect((await list('', other.apiKey)).json()).toEqual({ data: [], next_cursor: null })
    expect((await list(`?invoice_id=${id}`, other.apiKey)).json()).toEqual({ data: [], next_cursor: null })
  })

  it.each([
    ['?invoice_id=nope', 'invoice_id'],
    ['?status=sent', 'status'],
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
  ])('when the query is %s, then 400 validation_failed naming %s', async (query, field) => {
    await setup()
    const res = await list(query)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field })] })
  })

  it('when the API key is missing or wrong, then 401', async () => {
    await setup()
    const missing = await t.app.inject({ url: '/api/v1/webhooks/deliveries' })
    expect(missing.json()).toMatchObject({ status: 401, code: 'missing_api_key' })
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/test',
      headers: { 'x-api-key': `mk_${'x'.repeat(43)}` },
    })
    expect(wrong.json()).toMatchObject({ status: 401, code: 'invalid_api_key' })
  })
})

describe('POST /api/v1/webhooks/deliveries/{id}/retry', () => {
  it('when a failed delivery is retried after the endpoint is fixed, then it is sent again at once with the same webhook-id and body', async () => {
    await setup()
    rx.respond = () => 503
    const id = await createInvoice()
    await pay(id)
    const [failed] = await settledLog()
    expect(failed).toMatchObject({ status: 'failed' })
    expect(rx.received).toHaveLength(3)

    rx.respond = () => 200
    const res = await retry(failed!.id)
    expect(res.statusCode).toBe(202)
    expect(res.json()).toMatchObject({ id: failed!.id, status: 'pending', attempts: failed!.attempts })
    expect(Date.parse(res.json().next_attempt_at)).toBeLessThanOrEqual(Date.now())
    const hooks = await rx.waitFor(4)
    expect(hooks[3]!.headers['webhook-id']).toBe(hooks[0]!.headers['webhook-id'])
    expect(hooks[3]!.body).toBe(hooks[0]!.body)
    expect(hooks[3]!.answer).toBe(200)
    const [after] = await settledLog()
    expect(after).toMatchObject({ status: 'succeeded' })
    expect(after!.attempts).toHaveLength(4)
  })

  it('when a succeeded delivery is retried, then it is delivered once more', async () => {
    await setup()
    const id = await createInvoice()
    await pay(id)
    const [done] = await settledLog()
    expect((await retry(done!.id)).statusCode).toBe(202)
    await rx.waitFor(2)
    expect(rx.received[1]!.headers['webhook-id']).toBe(rx.received[0]!.headers['webhook-id'])
  })

  it('when a retry comes with an empty body labelled application/json (as many HTTP clients send every POST), then it is no body: 202', async () => {
    await setup()
    const id = await createInvoice()
    await pay(id)
    const [done] = await settledLog()
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${done!.id}/retry`,
      headers: { 'x-api-key': m.apiKey, 'content-type': 'application/json', 'content-length': '0' },
      payload: '',
    })
    expect(res.statusCode, res.body).toBe(202)
    await rx.waitFor(2)
  })

  it("when another merchant's delivery or an unknown id is retried, then 404 not_found; a malformed id is 400", async () => {
    await setup()
    const id = await createInvoice()
    await pay(id)
    const [d] = await settledLog()
    const other = await t.merchant('Other')
    const foreign = await retry(d!.id, other.apiKey)
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json()).toMatchObject({ code: 'not_found' })
    expect((await retry('0193a1c2-0000-7000-8000-000000000000')).json()).toMatchObject({
      status: 404,
      code: 'not_found',
    })
    expect((await retry('nope')).json()).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'delivery_id', message: 'must be a UUID' }],
    })
    await sleep(150)
    expect(rx.received).toHaveLength(1) // the foreign retry sent nothing
  })
})

describe('POST /api/v1/webhooks/test', () => {
  it('when a URL is given, then a signed webhook.test event is sent there now and the answer reported', async () => {
    await setup()
    const res = await post('/api/v1/webhooks/test', { url: rx.url })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ status_code: 200, latency_ms: expect.any(Number), error: null })
    const [hook] = rx.received
    expect(hook!.verifiedWith).toEqual([m.webhookSecret])
    expect(hook!.json).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { merchant_id: m.id } })
    expect(hook!.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect((await list()).json().data).toEqual([]) // not stored
  })

  it('when the receiver fails or is not there, then 200 still, with its status code or the error', async () => {
    await setup()
    rx.respond = () => 500
    expect((await post('/api/v1/webhooks/test', { url: rx.url })).json()).toMatchObject({
      status_code: 500,
      error: 'HTTP 500',
    })
    const gone = await startReceiver()
    await gone.close()
    expect((await post('/api/v1/webhooks/test', { url: gone.url })).json()).toMatchObject({
      status_code: null,
      error: 'connection refused (ECONNREFUSED)',
    })
    expect(rx.received).toHaveLength(1)
  })

  it.each([
    [{ url: 'ftp://shop.example/h' }, 'url'],
    [{ url: '/hooks' }, 'url'],
    [{ url: 'https://shop.example/h', extra: 1 }, 'extra'],
    [{}, 'url'],
  ])('when the body is %j, then 400 validation_failed naming %s', async (body, field) => {
    await setup()
    const res = await post('/api/v1/webhooks/test', body)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field })] })
  })

  it('when private addresses are not allowed, then loopback and private URLs are refused, as for callback_url', async () => {
    await setup({ ...ENV, WEBHOOK_ALLOW_PRIVATE: 'false' })
    for (const url of [rx.url, 'http://localhost/h', 'http://10.1.2.3/h', 'http://[::1]/h', 'http://2130706433/h']) {
      const res = await post('/api/v1/webhooks/test', { url })
      expect(res.statusCode, url).toBe(400)
      expect(res.json().errors[0]).toMatchObject({
        field: 'url',
        message: expect.stringContaining('only public hosts receive webhooks'),
      })
    }
    expect(rx.received).toHaveLength(0)
  })
})

describe('callback_url address rules at creation (API.md B6)', () => {
  it.each([
    'https://127.0.0.1/h',
    'https://localhost/h',
    'https://api.localhost/h',
    'https://10.0.0.8/h',
    'https://172.20.1.1/h',
    'https://192.168.1.10/h',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/h',
    'https://0.0.0.0/h',
    'https://[::1]/h',
    'https://[::ffff:127.0.0.1]/h',
    'https://[fd00::1]/h',
    'https://[fe80::1]/h',
    'https://2130706433/h',
    'https://0x7f000001/h',
    'https://127.1/h',
    'https://0177.0.0.1/h',
  ])('when callback_url is %s, then 400 validation_failed on callback_url', async (callbackUrl) => {
    await setup({ ...ENV, WEBHOOK_ALLOW_PRIVATE: 'false' })
    const res = await post('/api/v1/invoices', {
      order_id: 'G-1',
      amount: 10,
      currency: 'RUB',
      callback_url: callbackUrl,
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'callback_url', message: expect.stringMatching(/^must not point to an? [a-z-]+ address/) }],
    })
  })

  it('when WEBHOOK_ALLOW_PRIVATE is on, then a loopback callback_url is accepted; a public one always is', async () => {
    await setup()
    expect(
      (
        await post('/api/v1/invoices', {
          order_id: 'G-2',
          amount: 10,
          currency: 'RUB',
          callback_url: 'https://127.0.0.1/h',
        })
      ).statusCode,
    ).toBe(201)
    const strict = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE: 'false' })
    extra.push(() => strict.close())
    const sm = await strict.merchant()
    const res = await strict.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: { 'content-type': 'application/json', 'x-api-key': sm.apiKey },
      payload: JSON.stringify({
        order_id: 'G-3',
        amount: 10,
        currency: 'RUB',
        callback_url: 'https://93.184.216.34/h',
      }),
    })
    expect(res.statusCode).toBe(201)
  })
})

describe('webhook metrics', () => {
  it('when deliveries were made, then /metrics shows attempts by result, deliveries by outcome, latency and the queue gauges', async () => {
    await setup()
    rx.respond = (_h, k) => (k === 1 ? 500 : 200)
    await pay(await createInvoice())
    await settledLog()
    const text = (await t.app.inject({ url: '/metrics' })).body
    expect(text).toContain('webhook_attempts_total{result="http_error"} 1')
    expect(text).toContain('webhook_attempts_total{result="success"} 1')
    expect(text).toContain('webhook_deliveries_total{outcome="succeeded"} 1')
    expect(text).toMatch(/webhook_attempt_duration_seconds_count 2/)
    expect(text).toContain('webhook_queue_depth 0')
    expect(text).toContain('webhook_oldest_due_age_seconds 0')
    expect(text).toContain('http_requests_total') // the HTTP registry is still there
  })

  it('when deliveries wait, then the queue depth counts them', async () => {
    rx = await startReceiver()
    t = await buildTestApp(ENV, { realClock: true, webhooks: false }) // no dispatcher: deliveries stay pending
    m = await t.merchant()
    await pay(await createInvoice())
    await pay(await createInvoice(), 'hold')
    await sleep(20)
    const text = (await t.app.inject({ url: '/metrics' })).body
    expect(text).toContain('webhook_queue_depth 2')
    expect(Number(/webhook_oldest_due_age_seconds ([0-9.e-]+)/.exec(text)?.[1])).toBeGreaterThan(0)
  })
})

describe('secrets never reach the logs', () => {
  it('when a merchant works through invoices, webhooks, failures, retries, rotation and tests, then no log line carries a secret', async () => {
    const lines: string[] = []
    await setup({ ...ENV, LOG_LEVEL: 'trace' }, pino({ level: 'trace' }, { write: (s: string) => void lines.push(s) }))
    rx.respond = (_h, k) => (k % 2 === 1 ? 500 : 200)
    const { webhookSecret: rotated } = await rotateWebhookSecret(t.rt.deps, m.id)
    rx.secrets = [m.webhookSecret, rotated]
    const id = await createInvoice({ callback_url: `${rx.url}?token=merchant-own-token` })
    await pay(id, 'hold')
    await pay(id, 'paid')
    await settledLog()
    const [d] = (await list()).json().data
    await retry(d.id)
    await post('/api/v1/webhooks/test', { url: rx.url })
    await post('/api/v1/webhooks/test', { url: 'ftp://x' })
    await t.app.inject({ url: '/api/v1/webhooks/deliveries', headers: { 'x-api-key': `${m.apiKey}x` } })
    await rx.waitFor(6)
    await sleep(100)

    expect(lines.length).toBeGreaterThan(10)
    const log = lines.join('\n')
    const keyHash = createHash('sha256').update(m.apiKey).digest('hex')
    for (const secret of [
      m.apiKey,
      keyHash,
      m.webhookSecret,
      rotated,
      m.webhookSecret.slice(6),
      rotated.slice(6),
      'merchant-own-token',
    ]) {
      expect(log).not.toContain(secret)
    }
    expect(log).not.toMatch(/whsec_|mk_[A-Za-z0-9_-]{20}/)
    expect(log).toContain('webhook attempt failed; will retry') // the dispatcher did log
  })
})

describe('OpenAPI', () => {
  it('when /openapi.json is read, then the webhook endpoints and the webhook itself are documented', async () => {
    await setup()
    const doc = (await t.app.inject({ url: '/openapi.json' })).json()
    const ops = {
      listWebhookDeliveries: doc.paths['/api/v1/webhooks/deliveries'].get,
      retryWebhookDelivery: doc.paths['/api/v1/webhooks/deliveries/{delivery_id}/retry'].post,
      sendTestWebhook: doc.paths['/api/v1/webhooks/test'].post,
    }
    for (const [operationId, op] of Object.entries(ops)) {
      expect(op).toMatchObject({ operationId, tags: ['webhooks'], security: [{ ApiKey: [] }] })
      expect(op.summary).toEqual(expect.any(String))
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '500', '503']))
    }
    expect(Object.keys(ops.retryWebhookDelivery.responses)).toEqual(expect.arrayContaining(['202', '400', '404']))
    expect(doc.components.schemas.Invoice).toBeDefined()
    expect(doc.webhooks.invoiceEvent.post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/WebhookEvent',
    )
    // an invoice event carries the invoice as getInfo returns it; the test event only the merchant id
    expect(doc.components.schemas.InvoiceEvent.properties.data.$ref).toBe('#/components/schemas/Invoice')
    expect(doc.components.schemas.TestEvent.properties.data.required).toEqual(['merchant_id'])
  })
})
