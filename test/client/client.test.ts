/**
 * @invoice-service/client against the real service: listening on a real port over SQLite, on the real clock, with
 * its webhook dispatcher and a real receiver. No HTTP is mocked.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import {
  createInvoiceClient,
  isInvoiceServiceError,
  verifyWebhook,
  InvoiceServiceError,
  type Invoice,
  type InvoiceClient,
  type InvoiceStatus,
  type ProblemCode,
  type WebhookEvent,
} from '@invoice-service/client'
import { freePort, simulate, startLiveService, type LiveService } from '../helpers/live-service.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'

let n = 0
const orderId = (): string => `client-${process.pid}-${(n += 1)}`

/** The error a call rejects with (failing the test when it resolves). */
async function failure(call: Promise<unknown>): Promise<InvoiceServiceError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(InvoiceServiceError)
  return err as InvoiceServiceError
}

describe('@invoice-service/client against the running service', () => {
  let service: LiveService
  let rx: Receiver
  let client: InvoiceClient

  beforeAll(async () => {
    service = await startLiveService()
    rx = await startReceiver({ secrets: [service.merchant.webhookSecret] })
    client = createInvoiceClient({
      baseUrl: service.url,
      apiKey: service.merchant.apiKey,
      merchantId: service.merchant.id,
    })
  })
  afterAll(async () => {
    await rx?.close()
    await service?.close()
  })

  it('types: the generated document names the statuses, the problem codes and the events', () => {
    expectTypeOf<InvoiceStatus>().toEqualTypeOf<'pending' | 'hold' | 'paid' | 'failed' | 'expired'>()
    expectTypeOf<ProblemCode>().toExtend<string>()
    expectTypeOf<'order_id_conflict'>().toExtend<ProblemCode>()
    expectTypeOf<InvoiceServiceError['code']>().toEqualTypeOf<ProblemCode | 'network_error' | 'unexpected_response'>()
    expectTypeOf<WebhookEvent['type']>().toEqualTypeOf<
      | 'invoice.hold'
      | 'invoice.paid'
      | 'invoice.failed'
      | 'invoice.expired'
      | 'invoice.late_payment'
      | 'refund.succeeded'
      | 'refund.failed'
      | 'webhook.test'
    >()
    expectTypeOf(client.getInvoice).returns.resolves.toEqualTypeOf<Invoice & { refunded_amount?: string }>()
  })

  it('when an invoice is created and the same order_id is sent again, then the second answer is the same invoice, is_new false', async () => {
    const order = orderId()
    const body = { order_id: order, amount: '100.50', currency: 'RUB', comment: 'Blue mug' }
    const first = await client.createInvoice(body)
    expect(first).toMatchObject({ amount: '100.50', is_new: true, pay_url: `${service.url}/pay/${first.order_id}` })
    expect(first.qr_image).toMatch(/^data:image\/png;base64,/)
    const again = await client.createInvoice(body)
    expect(again).toMatchObject({ order_id: first.order_id, is_new: false })
  })

  it('when the same order_id comes with another amount, then it throws InvoiceServiceError order_id_conflict (409) with the problem', async () => {
    const order = orderId()
    await client.createInvoice({ order_id: order, amount: 10, currency: 'RUB' })
    const err = await failure(client.createInvoice({ order_id: order, amount: 11, currency: 'RUB' }))
    expect(err).toMatchObject({
      status: 409,
      code: 'order_id_conflict',
      problem: { type: 'about:blank', status: 409, code: 'order_id_conflict' },
    })
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(isInvoiceServiceError(err, 'order_id_conflict')).toBe(true)
    expect(isInvoiceServiceError(err, 'invoice_not_found')).toBe(false)
  })

  it('when a field is invalid, then the error is validation_failed and names the field', async () => {
    const err = await failure(client.createInvoice({ order_id: orderId(), amount: '100.500', currency: 'RUB' }))
    expect(err).toMatchObject({ status: 400, code: 'validation_failed' })
    expect(err.errors).toEqual([{ field: 'amount', message: expect.stringContaining('2 decimal places') }])
    expect(err.message).toContain('validation_failed')
  })

  it('when an invoice is read by id, by { invoice_id } and by { order_id }, then each is the same invoice', async () => {
    const order = orderId()
    const created = await client.createInvoice({ order_id: order, amount: '5.00', currency: 'USD' })
    const byId = await client.getInvoice(created.order_id)
    expect(byId).toMatchObject({
      id: created.order_id,
      merchant_id: service.merchant.id,
      order_id: order,
      amount: 5,
      currency: 'USD',
      status: 'pending',
      credited: null,
    })
    expect(await client.getInvoice({ invoice_id: created.order_id })).toEqual(byId)
    // by id: the extension view, with refunded_amount; by order_id: getInfo's 13 fields
    expect(byId.refunded_amount).toBe('0.00')
    const { refunded_amount: _refunded, ...invoice } = byId
    expect(await client.getInvoice({ order_id: order })).toEqual(invoice)
    expect((await failure(client.getInvoice({ order_id: 'no-such-order' }))).code).toBe('invoice_not_found')
    expect((await failure(client.getInvoice('0193a1c2-7d4e-7c3a-9f10-5b2e8c4d1a01'))).status).toBe(404)
  })

  it('when a paid invoice is refunded with createRefund, then the refunds add up, a repeat with its key is the same refund, and too much is refund_exceeds_amount', async () => {
    const created = await client.createInvoice({ order_id: orderId(), amount: '30.00', currency: 'RUB' })
    await simulate(service, created.order_id, 'paid')
    const part = await client.createRefund(created.order_id, { amount: '10.00', reason: 'a broken mug' })
    expect(part).toMatchObject({ invoice_id: created.order_id, amount: '10.00', status: 'succeeded' })
    const mine = await client.createRefund(created.order_id, { amount: 5 }, { idempotencyKey: 'client-refund-1' })
    expect(
      await client.createRefund(created.order_id, { amount: '5.00' }, { idempotencyKey: 'client-refund-1' }),
    ).toEqual(mine)
    const reuse = await failure(
      client.createRefund(created.order_id, { amount: 6 }, { idempotencyKey: 'client-refund-1' }),
    )
    expect(reuse).toMatchObject({ status: 409, code: 'idempotency_key_reuse' })
    const rest = await client.createRefund(created.order_id)
    expect(rest.amount).toBe('15.00')
    expect((await failure(client.createRefund(created.order_id, { amount: '0.01' }))).code).toBe(
      'refund_exceeds_amount',
    )
    expect((await client.listRefunds(created.order_id)).map((r) => r.id)).toEqual([part.id, mine.id, rest.id])
    expect(await client.getRefund(rest.id)).toEqual(rest)
    expect((await client.getInvoice(created.order_id)).refunded_amount).toBe('30.00')
  })

  it('when looking up by order_id, then the merchantId option is needed and must be the key’s merchant', async () => {
    const withoutId = createInvoiceClient({ baseUrl: service.url, apiKey: service.merchant.apiKey })
    await expect(withoutId.getInvoice({ order_id: 'x' })).rejects.toThrow(TypeError)
    const other = await service.t.merchant('Other Shop')
    const wrongId = createInvoiceClient({ baseUrl: service.url, apiKey: service.merchant.apiKey, merchantId: other.id })
    expect((await failure(wrongId.getInvoice({ order_id: 'x' }))).code).toBe('merchant_mismatch')
  })

  it('when the API key is wrong, then invalid_api_key (401)', async () => {
    const bad = createInvoiceClient({ baseUrl: `${service.url}/`, apiKey: `mk_${'A'.repeat(43)}` })
    expect(await failure(bad.listInvoices())).toMatchObject({ status: 401, code: 'invalid_api_key' })
  })

  it('when a hold is captured and a pending invoice cancelled, then paid and failed; a second cancel is invalid_transition', async () => {
    const held = await client.createInvoice({ order_id: orderId(), amount: '250.00', currency: 'RUB' })
    await simulate(service, held.order_id, 'hold')
    const captured = await client.capture(held.order_id)
    expect(captured).toMatchObject({ status: 'paid', credited: 250 })
    expect(captured.paid_at).toEqual(expect.any(String))

    const order = orderId()
    const pending = await client.createInvoice({ order_id: order, amount: '3.00', currency: 'EUR' })
    expect((await client.cancel(pending.order_id)).status).toBe('failed')
    expect(await failure(client.cancel(pending.order_id))).toMatchObject({ status: 409, code: 'invalid_transition' })
    // the order is free again: the same order_id makes a new invoice
    const recreated = await client.createInvoice({ order_id: order, amount: '4.00', currency: 'EUR' })
    expect(recreated.is_new).toBe(true)
    expect(recreated.order_id).not.toBe(pending.order_id)
  })

  it('when invoices are listed a page at a time or iterated, then every one comes back once, newest first', async () => {
    const lister = await service.t.merchant('Lister')
    const c = createInvoiceClient({ baseUrl: service.url, apiKey: lister.apiKey })
    const ids: string[] = []
    for (let i = 0; i < 5; i += 1)
      ids.push((await c.createInvoice({ order_id: `list-${i}`, amount: 1 + i, currency: 'RUB' })).order_id)
    const first = await c.listInvoices({ limit: 2 })
    expect(first.data.map((i) => i.id)).toEqual([ids[4], ids[3]])
    expect(first.next_cursor).toEqual(expect.any(String))
    const second = await c.listInvoices({ limit: '2', cursor: first.next_cursor ?? '' })
    expect(second.data.map((i) => i.id)).toEqual([ids[2], ids[1]])
    const all: string[] = []
    for await (const invoice of c.iterateInvoices({ limit: 2 })) all.push(invoice.id)
    expect(all).toEqual([...ids].reverse())
    await c.cancel(ids[0] ?? '')
    const failed: Invoice[] = []
    for await (const invoice of c.iterateInvoices({ status: 'failed' })) failed.push(invoice)
    expect(failed.map((i) => i.id)).toEqual([ids[0]])
  })

  it('when an invoice with a callback_url is paid, then verifyWebhook accepts the webhook, the log shows it and it can be redelivered', async () => {
    const order = orderId()
    const created = await client.createInvoice({
      order_id: order,
      amount: '42.00',
      currency: 'RUB',
      callback_url: rx.url,
    })
    const before = rx.received.length
    await simulate(service, created.order_id, 'paid')
    const [hook] = (await rx.waitFor(before + 1)).slice(before)
    const event = verifyWebhook(hook!.body, hook!.headers, service.merchant.webhookSecret)
    if (event.type === 'webhook.test') throw new Error('expected an invoice event')
    expect(event.type).toBe('invoice.paid')
    const { refunded_amount: _refunded, ...invoice } = await client.getInvoice(created.order_id)
    expect(event.data).toEqual(invoice)

    const deliveries = await client.listDeliveries({ invoice_id: created.order_id })
    expect(deliveries.data).toHaveLength(1)
    const delivery = deliveries.data[0]!
    expect(delivery).toMatchObject({
      event_id: hook!.headers['webhook-id'],
      type: 'invoice.paid',
      status: 'succeeded',
      url: rx.url,
    })
    expect(delivery.attempts[0]).toMatchObject({ status_code: 200, error: null })

    const again = await client.redeliver(delivery.id)
    expect(again).toMatchObject({ id: delivery.id, status: 'pending' })
    const redelivered = await rx.waitFor(2, { where: (h) => h.headers['webhook-id'] === delivery.event_id })
    expect(verifyWebhook(redelivered[1]!.body, redelivered[1]!.headers, service.merchant.webhookSecret)).toEqual(event)
    expect((await failure(client.redeliver('0193a1c3-0a1b-7c2d-8e3f-4a5b6c7d8e90'))).code).toBe('not_found')
  })

  it('when a test webhook is sent, then the result is reported and the event verifies as webhook.test', async () => {
    const before = rx.received.length
    const result = await client.sendTestWebhook(rx.url)
    expect(result).toMatchObject({ status_code: 200, error: null })
    const hook = rx.received[before]!
    expect(verifyWebhook(hook.body, hook.headers, service.merchant.webhookSecret)).toMatchObject({
      type: 'webhook.test',
      data: { merchant_id: service.merchant.id },
    })
  })
})

describe('@invoice-service/client when there is no problem document', () => {
  let proxy: Server
  let proxyUrl: string
  beforeAll(async () => {
    // a reverse proxy in front of a service that is down: HTML, not a problem document
    proxy = createServer((_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>'),
    )
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve))
  })

  it('when the answer is not a problem, then the code is unexpected_response with the status', async () => {
    const c = createInvoiceClient({ baseUrl: proxyUrl, apiKey: 'mk_x' })
    const err = await failure(c.getInvoice('0193a1c2-7d4e-7c3a-9f10-5b2e8c4d1a01'))
    expect(err).toMatchObject({ status: 502, code: 'unexpected_response', problem: undefined })
    expect(err.detail).toContain('502 Bad Gateway')
  })

  it('when nothing answers, then the code is network_error (after the retries a safe request gets)', async () => {
    const port = await freePort()
    const c = createInvoiceClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'mk_x', retries: 1 })
    const started = Date.now()
    const err = await failure(c.createInvoice({ order_id: 'x', amount: 1, currency: 'RUB' }))
    expect(err).toMatchObject({ status: 0, code: 'network_error' })
    expect(err.cause).toBeDefined()
    expect(Date.now() - started).toBeGreaterThanOrEqual(140) // one backoff of ~200 ms ±25 %
  })
})

describe('@invoice-service/client when a server answers strangely', () => {
  // A server scripted per test: each request gets the next answer of `script` (the last one repeats).
  type Answer = { status: number; headers?: Record<string, string>; body?: string }
  let script: Answer[] = []
  let seen: { method: string; url: string; apiKey: string | undefined }[] = []
  let other: Server
  let otherSeen: { url: string; apiKey: string | undefined }[] = []
  let server: Server
  let url: string
  let otherUrl: string
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        apiKey: req.headers['x-api-key'] as string | undefined,
      })
      const a = script[Math.min(seen.length - 1, script.length - 1)] ?? { status: 500 }
      res.writeHead(a.status, a.headers ?? {}).end(a.body ?? '')
    })
    other = createServer((req, res) => {
      otherSeen.push({ url: req.url ?? '', apiKey: req.headers['x-api-key'] as string | undefined })
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    await new Promise((resolve) => other.close(resolve))
  })
  const given = (...answers: Answer[]) => {
    script = answers
    seen = []
    otherSeen = []
  }
  const problem = (status: number, code: string) => ({
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: JSON.stringify({ type: 'about:blank', title: 'x', status, code, detail: code }),
  })
  const created = {
    status: 201,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: 'i', pay_url: 'p', qr_url: 'q', qr_image: 'd', amount: '1.00', is_new: true }),
  }

  it('when an answer redirects elsewhere, then it is not followed: the API key and body stay here, unexpected_response 307', async () => {
    given({ status: 307, headers: { location: `${otherUrl}/api/v1/invoices` } })
    const c = createInvoiceClient({ baseUrl: url, apiKey: 'mk_secret', retries: 2 })
    const err = await failure(c.createInvoice({ order_id: 'x', amount: 1, currency: 'RUB' }))
    expect(err).toMatchObject({ status: 307, code: 'unexpected_response' })
    expect(otherSeen).toEqual([])
    expect(seen).toHaveLength(1)
  })

  it('when create gets a 500, then it is retried (create is idempotent by order_id); capture is not', async () => {
    given(problem(500, 'internal_error'), created)
    const c = createInvoiceClient({ baseUrl: url, apiKey: 'mk_x', retries: 2 })
    expect(await c.createInvoice({ order_id: 'x', amount: 1, currency: 'RUB' })).toMatchObject({ is_new: true })
    expect(seen).toHaveLength(2)
    given(problem(500, 'internal_error'), { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(await failure(c.capture('0193a1c2-7d4e-7c3a-9f10-5b2e8c4d1a01'))).toMatchObject({
      status: 500,
      code: 'internal_error',
    })
    expect(seen).toHaveLength(1)
  })

  it('when a 2xx body is not JSON, then unexpected_response with that status, not network_error, and no retry', async () => {
    given({
      status: 201,
      headers: { 'content-type': 'application/json', 'x-request-id': 'r-1' },
      body: '{"order_id": "cut off',
    })
    const c = createInvoiceClient({ baseUrl: url, apiKey: 'mk_x', retries: 2 })
    const err = await failure(c.createInvoice({ order_id: 'x', amount: 1, currency: 'RUB' }))
    expect(err).toMatchObject({ status: 201, code: 'unexpected_response', requestId: 'r-1' })
    expect(seen).toHaveLength(1)
  })

  it('when Retry-After asks for longer than 10 s, then the error is thrown at once with retryAfter', async () => {
    given({
      ...problem(429, 'rate_limited'),
      headers: { 'content-type': 'application/problem+json', 'retry-after': '60' },
    })
    const c = createInvoiceClient({ baseUrl: url, apiKey: 'mk_x', retries: 2 })
    const started = Date.now()
    const err = await failure(c.listInvoices())
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 60 })
    expect(seen).toHaveLength(1)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('when Retry-After is an HTTP date (from a proxy), then it counts from now like seconds', async () => {
    const inAMinute = new Date(Date.now() + 60_000).toUTCString()
    given({
      ...problem(503, 'unavailable'),
      headers: { 'content-type': 'application/problem+json', 'retry-after': inAMinute },
    })
    const c = createInvoiceClient({ baseUrl: url, apiKey: 'mk_x', retries: 2 })
    const err = await failure(c.listInvoices())
    expect(err).toMatchObject({ status: 503, code: 'unavailable' })
    expect(err.retryAfter).toBeGreaterThanOrEqual(59)
    expect(err.retryAfter).toBeLessThanOrEqual(61)
    // over 10 s: thrown at once, not retried after the client's own short backoff
    expect(seen).toHaveLength(1)
  })
})

describe('@invoice-service/client and the rate limit', () => {
  let service: LiveService
  beforeAll(async () => {
    service = await startLiveService({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '1' })
  })
  afterAll(async () => {
    await service?.close()
  })

  it('when a request is refused with 429, then it is retried after Retry-After; with retries: 0 the error carries retryAfter', async () => {
    const noRetry = createInvoiceClient({ baseUrl: service.url, apiKey: service.merchant.apiKey, retries: 0 })
    await noRetry.listInvoices()
    const err = await failure(noRetry.listInvoices())
    expect(err).toMatchObject({ status: 429, code: 'rate_limited' })
    expect(err.retryAfter).toBeGreaterThanOrEqual(1)

    const patient = createInvoiceClient({ baseUrl: service.url, apiKey: service.merchant.apiKey })
    const started = Date.now()
    expect((await patient.listInvoices()).data).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(500)
  })
})
