/**
 * The fake Stripe itself, spoken to over plain HTTP (as the SDK would, without the SDK): its wire format, its
 * hosted page and the controls of FakeAcquirer. The adapter's own tests are test/providers/stripe-adapter.test.ts.
 */
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFakeStripe, type FakeStripe } from './fake-stripe.js'
import { parseStripeForm } from './form.js'

let fake: FakeStripe
const received: { signature: string; body: string; type: string }[] = []
let sinkUrl = ''
const sink = createServer((req, res) => {
  let body = ''
  req.on('data', (c: Buffer) => (body += c.toString('utf8')))
  req.on('end', () => {
    received.push({
      signature: String(req.headers['stripe-signature']),
      body,
      type: (JSON.parse(body) as { type: string }).type,
    })
    res.writeHead(204).end()
  })
})

beforeAll(async () => {
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`
})
afterAll(async () => new Promise<void>((resolve) => sink.close(() => resolve())))
beforeEach(async () => {
  received.length = 0
  fake = await startFakeStripe({ secretKey: 'sk_test_fakefakefake1234' })
  fake.setNotificationUrl(sinkUrl)
})
afterEach(async () => fake.close())

const form = (params: Record<string, string>) => new URLSearchParams(params).toString()

const call = async (
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, string> = {},
  headers: Record<string, string> = {},
) => {
  const query = method === 'GET' && Object.keys(params).length > 0 ? `?${form(params)}` : ''
  const res = await fetch(`${fake.apiUrl}${path}${query}`, {
    method,
    headers: {
      authorization: `Bearer ${fake.secretKey}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    ...(method === 'POST' ? { body: form(params) } : {}),
  })
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> }
}

const SESSION = {
  mode: 'payment',
  'line_items[0][quantity]': '1',
  'line_items[0][price_data][currency]': 'eur',
  'line_items[0][price_data][unit_amount]': '1999',
  'line_items[0][price_data][product_data][name]': 'Order 7',
  'payment_intent_data[capture_method]': 'manual',
  'payment_intent_data[metadata][invoice_id]': 'inv-7',
  'metadata[invoice_id]': 'inv-7',
  success_url: 'http://shop.test/back?session={CHECKOUT_SESSION_ID}',
  cancel_url: 'http://shop.test/back',
}

describe('the fake Stripe API', () => {
  it('parses nested form keys as the SDK writes them', () => {
    expect(parseStripeForm('a[b][c]=1&a[b][d]=2&l[0][x]=y&l[1][x]=z&e[]=p&e[]=q&k=v%20w')).toEqual({
      a: { b: { c: '1', d: '2' } },
      l: [{ x: 'y' }, { x: 'z' }],
      e: ['p', 'q'],
      k: 'v w',
    })
  })

  it("refuses a missing or wrong key with Stripe's 401 error, masking the key", async () => {
    const none = await call('GET', '/v1/payment_intents/pi_1', {}, { authorization: '' })
    expect(none.status).toBe(401)
    expect(none.json).toMatchObject({
      error: { type: 'invalid_request_error', message: expect.stringMatching(/did not provide an API key/) },
    })
    const wrong = await call('GET', '/v1/payment_intents/pi_1', {}, { authorization: 'Bearer sk_test_wrongwrong9876' })
    expect(wrong.status).toBe(401)
    expect(wrong.json).toMatchObject({
      error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_**********9876' },
    })
  })

  it('creates a session, replays it for the same key and parameters, refuses the key with others', async () => {
    const a = await call('POST', '/v1/checkout/sessions', SESSION, { 'idempotency-key': 'k1' })
    expect(a.status).toBe(200)
    expect(a.json).toMatchObject({
      object: 'checkout.session',
      status: 'open',
      amount_total: 1999,
      payment_intent: null,
    })
    const b = await call('POST', '/v1/checkout/sessions', SESSION, { 'idempotency-key': 'k1' })
    expect(b.json['id']).toBe(a.json['id'])
    expect(b.headers.get('idempotent-replayed')).toBe('true')
    const c = await call(
      'POST',
      '/v1/checkout/sessions',
      { ...SESSION, mode: 'payment', cancel_url: 'http://x' },
      {
        'idempotency-key': 'k1',
      },
    )
    expect(c.status).toBe(400)
    expect(c.json).toMatchObject({ error: { type: 'idempotency_error' } })
    expect(fake.createdCount).toBe(1)
  })

  it('refuses bad parameters and unknown objects in Stripe’s error shape', async () => {
    const noMode = await call('POST', '/v1/checkout/sessions', { ...SESSION, mode: '' })
    expect(noMode.status).toBe(400)
    const tooLate = await call('POST', '/v1/checkout/sessions', {
      ...SESSION,
      expires_at: String(Math.floor(Date.now() / 1000) + 25 * 3600),
    })
    expect(tooLate.json).toMatchObject({ error: { type: 'invalid_request_error', param: 'expires_at' } })
    const unknown = await call('GET', '/v1/payment_intents/pi_nope')
    expect(unknown).toMatchObject({
      status: 404,
      json: {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: "No such payment_intent: 'pi_nope'",
        },
      },
    })
    expect((await call('GET', '/v1/nothing')).status).toBe(404)
  })

  it('serves a hosted page whose Pay authorises, notifies, and sends the buyer back (303)', async () => {
    const session = await call('POST', '/v1/checkout/sessions', SESSION)
    const url = String(session.json['url'])
    const page = await fetch(url)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<button type="submit">Pay</button>')
    expect(html).toContain('<button type="submit">Decline</button>')

    const declined = await fetch(url, {
      method: 'POST',
      body: form({ action: 'decline' }),
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(declined.status).toBe(303)
    expect(declined.headers.get('location')).toBe(`/c/pay/${String(session.json['id'])}?declined=1`)
    expect(await (await fetch(`${url}?declined=1`)).text()).toContain('Your card was declined')

    const paid = await fetch(url, {
      method: 'POST',
      body: form({ action: 'pay' }),
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(paid.status).toBe(303)
    expect(paid.headers.get('location')).toBe(`http://shop.test/back?session=${String(session.json['id'])}`)
    expect(received.map((r) => r.type)).toEqual([
      'payment_intent.payment_failed',
      'payment_intent.amount_capturable_updated',
      'checkout.session.completed',
    ])
    const expanded = await call('GET', `/v1/checkout/sessions/${String(session.json['id'])}`, {
      'expand[0]': 'payment_intent',
    })
    expect(expanded.json).toMatchObject({
      status: 'complete',
      payment_intent: {
        object: 'payment_intent',
        status: 'requires_capture',
        amount_capturable: 1999,
        metadata: { invoice_id: 'inv-7' },
      },
    })
  })

  it('fails a refund after it succeeded: the Refund failed with its reason, the money back, refund.updated and refund.failed sent', async () => {
    const session = await call('POST', '/v1/checkout/sessions', {
      ...SESSION,
      'payment_intent_data[capture_method]': 'automatic',
    })
    await fake.buyer(String(session.json['id']), 'pay')
    const pi = fake.payments()[0]?.id ?? ''
    const refund = await call('POST', '/v1/refunds', { payment_intent: pi, amount: '500' })
    expect(refund).toMatchObject({ status: 200, json: { object: 'refund', status: 'succeeded', amount: 500 } })
    expect(fake.payments()[0]?.refunded).toBe(500)
    await fake.settled()
    received.length = 0
    const id = String(refund.json['id'])
    await fake.failRefund(id, 'lost_or_stolen_card')
    expect((await call('GET', `/v1/refunds/${id}`)).json).toMatchObject({
      id,
      status: 'failed',
      failure_reason: 'lost_or_stolen_card',
      amount: 500,
    })
    expect(fake.payments()[0]?.refunded).toBe(0)
    expect(received.map((r) => r.type)).toEqual(['refund.updated', 'refund.failed'])
    for (const r of received)
      expect(JSON.parse(r.body)).toMatchObject({ data: { object: { id, object: 'refund', status: 'failed' } } })
    // a failed refund cannot fail again
    await expect(fake.failRefund(id)).rejects.toThrow(/failed already/)
  })

  it('signs each event with HMAC-SHA256 over "t.payload" and the endpoint secret', async () => {
    const session = await call('POST', '/v1/checkout/sessions', SESSION)
    await fake.buyer(String(session.json['id']), 'pay')
    for (const r of received) {
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(r.signature)
      expect(m).not.toBeNull()
      const expected = createHmac('sha256', fake.webhookSecret).update(`${m?.[1]}.${r.body}`).digest('hex')
      expect(m?.[2]).toBe(expected)
      expect(JSON.parse(r.body)).toMatchObject({
        object: 'event',
        livemode: false,
        data: { object: { object: expect.any(String) } },
      })
    }
  })

  it('drops, pauses, releases in a given order, and replays notifications', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i += 1) {
      const s = await call('POST', '/v1/checkout/sessions', {
        ...SESSION,
        'payment_intent_data[capture_method]': 'automatic',
      })
      ids.push(String(s.json['id']))
    }
    fake.dropNotifications(1)
    await fake.buyer(ids[0] ?? '', 'pay') // its payment_intent.succeeded is lost; checkout.session.completed arrives
    expect(received.map((r) => r.type)).toEqual(['checkout.session.completed'])
    fake.pauseNotifications()
    await fake.buyer(ids[1] ?? '', 'pay')
    await fake.expireCheckout(ids[2] ?? '')
    expect(received).toHaveLength(1)
    await fake.releaseNotifications([2, 0])
    expect(received.map((r) => r.type)).toEqual([
      'checkout.session.completed',
      'checkout.session.expired',
      'payment_intent.succeeded',
      'checkout.session.completed',
    ])
    received.length = 0
    await fake.replayNotifications()
    expect(received).toHaveLength(4)
  })

  it('is down on demand: 503 in Stripe’s shape, or no answer at all', async () => {
    fake.setDown('error')
    const down = await call('GET', '/v1/payment_intents/pi_1')
    expect(down).toMatchObject({ status: 503, json: { error: { type: 'api_error' } } })
    fake.setDown('hang')
    const hung = await fetch(`${fake.apiUrl}/v1/payment_intents/pi_1`, { signal: AbortSignal.timeout(200) }).catch(
      (e: Error) => e.name,
    )
    expect(hung).toBe('TimeoutError')
    fake.setDown(false)
    expect((await call('GET', '/v1/payment_intents/pi_1')).status).toBe(404)
  })
})
