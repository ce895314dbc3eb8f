/**
 * The merchant's webhook endpoints (docs/webhooks.md#delivery-log): the delivery log, redelivery and the test event; the address rules
 * for callback_url at creation (docs/webhooks.md#addresses); the webhook metrics; and that no secret reaches a log line.
 */
import { createHash } from 'node:crypto'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { rotateWebhookSecret } from '../../src/app/rotate-webhook-secret.js'
import {
  api,
  expectProblem,
  expectStatus,
  unchecked,
  type Delivery,
  type InvoiceFields,
  type TestClient,
} from '../helpers/api.js'
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

/** The merchant's client (of the app of this test). */
const shop = (): TestClient => api(t).as(m)

let n = 0
async function createInvoice(extraBody: InvoiceFields = {}): Promise<string> {
  n += 1
  return shop().newInvoice({ order_id: `WE-${n}`, amount: 10, currency: 'RUB', callback_url: rx.url, ...extraBody })
}

const pay = async (id: string, outcome: 'paid' | 'hold' | 'failed' = 'paid') =>
  expectStatus(await api(t).simulate(id, { outcome }), 200)
/** The merchant's delivery log for `query`, expecting 200. */
const list = async (query: Parameters<TestClient['listDeliveries']>[0] = {}) => {
  const res = await shop().listDeliveries(query)
  expectStatus(res, 200)
  return res.body
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (done(v)) return v
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(v)}`)
    await sleep(20)
  }
}

const settledLog = (query: Parameters<TestClient['listDeliveries']>[0] = {}): Promise<Delivery[]> =>
  until(
    async () => (await list(query)).data,
    (ds) => ds.length > 0 && ds.every((d) => d.status !== 'pending'),
  )

describe('GET /api/v1/webhooks/deliveries', () => {
  /** Three settled deliveries: a's hold and paid (succeeded), then b's failed (its endpoint answers 500). */
  const threeDeliveries = async () => {
    await setup()
    rx.respond = (h) => (h.json.data['order_id'] === `WE-${n}` ? 500 : 200) // the last invoice's endpoint fails
    const a = await createInvoice()
    await pay(a, 'hold')
    await pay(a, 'paid')
    const b = await createInvoice()
    await pay(b, 'failed')
    return { a, b, all: await settledLog() }
  }

  it('when deliveries exist, then the log lists them newest first with their attempts', async () => {
    const { a, b, all } = await threeDeliveries()
    expect(all.map((d) => [d.invoice_id, d.type, d.status])).toEqual([
      [b, 'invoice.failed', 'failed'],
      [a, 'invoice.paid', 'succeeded'],
      [a, 'invoice.hold', 'succeeded'],
    ])
    const first = (await list()).data[0]!
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
  })

  it('when the log is longer than a page, then the cursor walks it', async () => {
    const { all } = await threeDeliveries()
    const page1 = await list({ limit: '2' })
    expect(page1.data.map((d) => d.id)).toEqual(all.slice(0, 2).map((d) => d.id))
    const page2 = await list({ limit: '2', cursor: page1.next_cursor! })
    expect(page2).toEqual({ data: [expect.objectContaining({ id: all[2]!.id })], next_cursor: null })
  })

  it('when the log is filtered by invoice or by status, then only those deliveries are listed', async () => {
    const { a, b } = await threeDeliveries()
    expect((await list({ invoice_id: a })).data.map((d) => d.type)).toEqual(['invoice.paid', 'invoice.hold'])
    expect((await list({ status: 'failed' })).data.map((d) => d.invoice_id)).toEqual([b])
    expect((await list({ status: 'pending' })).data).toEqual([])
  })

  it("when the template's parameters are given empty, then they are taken as not given", async () => {
    const { a, all } = await threeDeliveries()
    expect(await list('?invoice_id=&status=&limit=&cursor=')).toEqual({
      data: all.map((d) => expect.objectContaining({ id: d.id })),
      next_cursor: null,
    })
    expect((await list(`?invoice_id=${a}&status=&limit=`)).data.map((d) => d.type)).toEqual([
      'invoice.paid',
      'invoice.hold',
    ])
  })

  it("when another merchant reads the log, then it sees none of this merchant's deliveries, even by invoice_id", async () => {
    await setup()
    const id = await createInvoice()
    await pay(id)
    await settledLog()
    const other = api(t).as(await t.merchant('Other'))
    expect((await other.listDeliveries()).body).toEqual({ data: [], next_cursor: null })
    expect((await other.listDeliveries({ invoice_id: id })).body).toEqual({ data: [], next_cursor: null })
  })

  it.each([
    ['?invoice_id=nope', 'invoice_id'],
    ['?status=sent', 'status'],
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
  ])('when the query is %s, then 400 validation_failed naming %s', async (query, field) => {
    await setup()
    const p = expectProblem(await shop().listDeliveries(query), 400, 'validation_failed')
    expect(p.errors).toMatchObject([expect.objectContaining({ field })])
  })

  it('when the API key is missing, then 401 missing_api_key', async () => {
    await setup()
    expectProblem(await api(t).listDeliveries(), 401, 'missing_api_key')
  })

  it('when the API key is wrong, then 401 invalid_api_key', async () => {
    await setup()
    const wrong = await api(t)
      .as({ apiKey: `mk_${'x'.repeat(43)}` })
      .raw({ method: 'POST', url: '/api/v1/webhooks/test' })
    expectProblem(wrong, 401, 'invalid_api_key')
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
    const res = await shop().retryDelivery(failed!.id)
    expectStatus(res, 202)
    expect(res.body).toMatchObject({ id: failed!.id, status: 'pending', attempts: failed!.attempts })
    expect(Date.parse(res.body.next_attempt_at!)).toBeLessThanOrEqual(Date.now())
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
    expectStatus(await shop().retryDelivery(done!.id), 202)
    await rx.waitFor(2)
    expect(rx.received[1]!.headers['webhook-id']).toBe(rx.received[0]!.headers['webhook-id'])
  })

  it('when a retry comes with an empty body labelled application/json (as many HTTP clients send every POST), then it is no body: 202', async () => {
    await setup()
    const id = await createInvoice()
    await pay(id)
    const [done] = await settledLog()
    const res = await shop().raw({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${done!.id}/retry`,
      headers: { 'content-type': 'application/json', 'content-length': '0' },
      payload: '',
    })
    expectStatus(res, 202)
    await rx.waitFor(2)
  })

  it("when another merchant's delivery is retried, then 404 not_found and nothing is sent", async () => {
    await setup()
    const id = await createInvoice()
    await pay(id)
    const [d] = await settledLog()
    const other = api(t).as(await t.merchant('Other'))
    expectProblem(await other.retryDelivery(d!.id), 404, 'not_found')
    await sleep(150)
    expect(rx.received).toHaveLength(1) // the foreign retry sent nothing
  })

  it('when an unknown delivery id is retried, then 404 not_found', async () => {
    await setup()
    expectProblem(await shop().retryDelivery('0193a1c2-0000-7000-8000-000000000000'), 404, 'not_found')
  })

  it('when a malformed delivery id is retried, then 400 validation_failed naming it', async () => {
    await setup()
    const p = expectProblem(await shop().retryDelivery('nope'), 400, 'validation_failed')
    expect(p.errors).toEqual([{ field: 'delivery_id', message: 'must be a UUID' }])
  })
})

describe('POST /api/v1/webhooks/test', () => {
  it('when a URL is given, then a signed webhook.test event is sent there now and the answer reported', async () => {
    await setup()
    const res = await shop().sendTestWebhook({ url: rx.url })
    expectStatus(res, 200)
    expect(res.body).toEqual({ status_code: 200, latency_ms: expect.any(Number), error: null })
    const [hook] = rx.received
    expect(hook!.verifiedWith).toEqual([m.webhookSecret])
    expect(hook!.json).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { merchant_id: m.id } })
    expect(hook!.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect((await list()).data).toEqual([]) // not stored
  })

  it('when the receiver fails, then 200 still, with its status code', async () => {
    await setup()
    rx.respond = () => 500
    const res = await shop().sendTestWebhook({ url: rx.url })
    expectStatus(res, 200)
    expect(res.body).toMatchObject({ status_code: 500, error: 'HTTP 500' })
    expect(rx.received).toHaveLength(1)
  })

  it('when the receiver is not there, then 200 still, with the error', async () => {
    await setup()
    const gone = await startReceiver()
    await gone.close()
    const res = await shop().sendTestWebhook({ url: gone.url })
    expectStatus(res, 200)
    expect(res.body).toMatchObject({ status_code: null, error: 'connection refused (ECONNREFUSED)' })
  })

  it.each([
    [{ url: 'ftp://shop.example/h' }, 'url'],
    [{ url: '/hooks' }, 'url'],
    [{ url: 'https://shop.example/h', extra: 1 }, 'extra'],
    [{}, 'url'],
  ])('when the body is %j, then 400 validation_failed naming %s', async (body, field) => {
    await setup()
    const p = expectProblem(await shop().sendTestWebhook(unchecked(body)), 400, 'validation_failed')
    expect(p.errors).toMatchObject([expect.objectContaining({ field })])
  })

  it('when private addresses are not allowed, then loopback and private URLs are refused, as for callback_url', async () => {
    await setup({ ...ENV, WEBHOOK_ALLOW_PRIVATE: 'false' })
    for (const url of [rx.url, 'http://localhost/h', 'http://10.1.2.3/h', 'http://[::1]/h', 'http://2130706433/h']) {
      const p = expectProblem(await shop().sendTestWebhook({ url }), 400, 'validation_failed')
      expect(p.errors?.[0], url).toMatchObject({
        field: 'url',
        message: expect.stringContaining('only public hosts receive webhooks'),
      })
    }
    expect(rx.received).toHaveLength(0)
  })
})

describe('callback_url address rules at creation (docs/webhooks.md#addresses)', () => {
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
    const res = await shop().createInvoice({ order_id: 'G-1', amount: 10, currency: 'RUB', callback_url: callbackUrl })
    const p = expectProblem(res, 400, 'validation_failed')
    expect(p.errors).toMatchObject([
      { field: 'callback_url', message: expect.stringMatching(/^must not point to an? [a-z-]+ address/) },
    ])
  })

  it('when WEBHOOK_ALLOW_PRIVATE is on, then a loopback callback_url is accepted', async () => {
    await setup()
    const res = await shop().createInvoice({
      order_id: 'G-2',
      amount: 10,
      currency: 'RUB',
      callback_url: 'https://127.0.0.1/h',
    })
    expectStatus(res, 201)
  })

  it('when WEBHOOK_ALLOW_PRIVATE is off, then a public callback_url is still accepted', async () => {
    await setup()
    const strict = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE: 'false' })
    extra.push(() => strict.close())
    const res = await api(strict)
      .as(await strict.merchant())
      .createInvoice({ order_id: 'G-3', amount: 10, currency: 'RUB', callback_url: 'https://93.184.216.34/h' })
    expectStatus(res, 201)
  })
})

describe('webhook metrics', () => {
  it('when deliveries were made, then /metrics shows attempts by result, deliveries by outcome, latency and the queue gauges', async () => {
    await setup()
    rx.respond = (_h, k) => (k === 1 ? 500 : 200)
    await pay(await createInvoice())
    await settledLog()
    const text = (await api(t).metrics()).text
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
    const text = (await api(t).metrics()).text
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
    const [d] = (await list()).data
    await shop().retryDelivery(d!.id)
    await shop().sendTestWebhook({ url: rx.url })
    await shop().sendTestWebhook({ url: 'ftp://x' })
    await api(t)
      .as({ apiKey: `${m.apiKey}x` })
      .listDeliveries()
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
    const doc = (await api(t).openapi()).body
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
