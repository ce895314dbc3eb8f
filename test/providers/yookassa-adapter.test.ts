/**
 * The YooKassa adapter over real HTTP against the stateful fake YooKassa (test/fakes/yookassa): checkout,
 * notifications verified by sender and re-fetch, fetch, capture, release, refund, and the errors.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  createYooKassaProvider,
  YOOKASSA_NOTIFICATION_SOURCES,
  type YooKassaSettings,
} from '../../src/adapters/providers/yookassa/yookassa-provider.js'
import type { InvoiceId } from '../../src/domain/ids.js'
import { parseIpRange } from '../../src/domain/ip-range.js'
import type { Minor } from '../../src/domain/money.js'
import type {
  CheckoutRequest,
  HeldPayment,
  IncomingNotification,
  PaymentProvider,
} from '../../src/ports/payment-provider.js'
import { startFakeYooKassa, type FakeYooKassa } from '../fakes/yookassa/fake-yookassa.js'

/** A stand-in for our notification route: keeps each POST's exact bytes to feed to verifyNotification. */
interface Capture {
  readonly url: string
  readonly bodies: Buffer[]
  waitFor(n: number): Promise<Buffer[]>
  close(): Promise<void>
}

async function startCapture(): Promise<Capture> {
  const bodies: Buffer[] = []
  let wake: () => void = () => undefined
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks))
      res.writeHead(200).end()
      wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/providers/yookassa/notifications`,
    bodies,
    async waitFor(n) {
      const until = Date.now() + 5_000
      while (bodies.length < n) {
        if (Date.now() > until) throw new Error(`only ${bodies.length} of ${n} notifications arrived`)
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 50)
        })
      }
      return bodies
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let fake: FakeYooKassa
let capture: Capture
let provider: PaymentProvider

const settingsOf = (over: Partial<YooKassaSettings> = {}): YooKassaSettings => ({
  shopId: fake.shopId,
  secretKey: fake.secretKey,
  apiUrl: fake.apiUrl,
  timeoutMs: 3_000,
  notificationSources: ['127.0.0.1/32'],
  ...over,
})

const now = new Date()
const checkout = (over: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
  reference: { invoiceId: `inv-${randomUUID()}` as InvoiceId, attempt: 1 },
  idempotencyKey: randomUUID(),
  amount: 1050 as Minor,
  currency: 'RUB',
  exponent: 2,
  service: 'shop',
  hold: false,
  description: 'Order 42',
  returnUrl: 'http://127.0.0.1:9/pay/inv',
  expiresAt: new Date(now.getTime() + 3600_000),
  now,
  ...over,
})

const held = (paymentId: string, over: Partial<HeldPayment> = {}): HeldPayment => ({
  checkoutId: paymentId,
  paymentId,
  invoiceId: 'inv-1' as InvoiceId,
  amount: 1050 as Minor,
  currency: 'RUB',
  exponent: 2,
  service: 'shop',
  idempotencyKey: randomUUID(),
  ...over,
})

const incoming = (rawBody: Buffer | string, remoteAddress = '127.0.0.1'): IncomingNotification => ({
  rawBody: typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody,
  headers: { 'content-type': 'application/json' },
  remoteAddress,
  now: new Date(),
})

const reference = { invoiceId: 'inv-1' as InvoiceId, attempt: 1 }
const ref = (id: string) => ({ checkoutId: id, paymentId: id })

beforeAll(async () => {
  fake = await startFakeYooKassa()
  capture = await startCapture()
  fake.setNotificationUrl(capture.url)
  provider = createYooKassaProvider(settingsOf())
})
afterAll(async () => {
  await fake.close()
  await capture.close()
})
afterEach(() => {
  fake.setDown(false)
  capture.bodies.length = 0
})

describe('YooKassa adapter: checkout', () => {
  it('when two checkouts race with the same idempotency key, then YooKassa makes one payment', async () => {
    const before = fake.createdCount
    const request = checkout()
    const [a, b] = await Promise.all([provider.startCheckout(request), provider.startCheckout(request)])
    expect(fake.createdCount - before).toBe(1)
    expect(a).toEqual(b)
    expect(a.checkoutId).toBe(a.paymentId)
    expect(a.redirectUrl).toMatch(/\/checkout\/payments\/v2\/contract\?orderId=/)
    const stored = fake.payments().find((p) => p.id === a.checkoutId)
    expect(stored).toMatchObject({
      status: 'pending',
      amount: 1050,
      currency: 'RUB',
      metadata: { invoice_id: request.reference.invoiceId, attempt: '1' },
    })
    await provider.startCheckout(checkout())
    expect(fake.createdCount - before).toBe(2)
  })

  it('when the description is long, then YooKassa gets its first 128 characters', async () => {
    const started = await provider.startCheckout(checkout({ description: 'ж'.repeat(300) }))
    const page = await (await fetch(started.redirectUrl)).text()
    expect(page).toContain('ж'.repeat(128))
    expect(page).not.toContain('ж'.repeat(129))
  })

  it('when the buyer pays on the confirmation page, then they are sent back to our page (303)', async () => {
    const request = checkout()
    const started = await provider.startCheckout(request)
    const page = await (await fetch(started.redirectUrl)).text()
    expect(page).toContain('10.50 RUB')
    expect(page).toMatch(/<button[^>]*value="pay"[^>]*>Pay<\/button>/)
    expect(page).toMatch(/<button[^>]*value="decline"[^>]*>Decline<\/button>/)
    const res = await fetch(started.redirectUrl, {
      method: 'POST',
      body: new URLSearchParams({ action: 'pay' }),
      redirect: 'manual',
    })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(request.returnUrl)
    expect((await provider.fetchPayment(ref(started.checkoutId), reference)).state).toBe('succeeded')
  })
})

describe('YooKassa adapter: notifications', () => {
  it('when a paid payment is notified, then the verified update says succeeded with our reference', async () => {
    const request = checkout()
    const started = await provider.startCheckout(request)
    await fake.buyer(started.checkoutId, 'pay')
    const [body] = await capture.waitFor(1)
    expect(JSON.parse(String(body))).toMatchObject({ type: 'notification', event: 'payment.succeeded' })
    const outcome = await provider.verifyNotification(incoming(body ?? ''))
    expect(outcome).toEqual({
      kind: 'update',
      event: 'payment.succeeded',
      update: {
        reference: request.reference,
        checkoutId: started.checkoutId,
        paymentId: started.checkoutId,
        state: 'succeeded',
        amount: 1050,
        currency: 'RUB',
      },
    })
  })

  it('when a holding payment is authorised, then the update says held, and after capture succeeded', async () => {
    const started = await provider.startCheckout(checkout({ hold: true }))
    await fake.buyer(started.checkoutId, 'pay')
    const [first] = await capture.waitFor(1)
    const outcome = await provider.verifyNotification(incoming(first ?? ''))
    expect(outcome).toMatchObject({ kind: 'update', event: 'payment.waiting_for_capture', update: { state: 'held' } })
    await provider.captureHold(held(started.checkoutId))
    const [, second] = await capture.waitFor(2)
    expect(await provider.verifyNotification(incoming(second ?? ''))).toMatchObject({
      event: 'payment.succeeded',
      update: { state: 'succeeded', amount: 1050 },
    })
  })

  it('when the sender is outside the configured ranges, then 401 and YooKassa is not asked', async () => {
    const started = await provider.startCheckout(checkout())
    await fake.buyer(started.checkoutId, 'pay')
    const [body] = await capture.waitFor(1)
    for (const address of ['10.0.0.1', '127.0.0.2', '::1', '', 'not-an-address'])
      await expect(provider.verifyNotification(incoming(body ?? '', address)), address).rejects.toMatchObject({
        name: 'NotificationRejected',
        status: 401,
      })
    // a dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d
    expect(await provider.verifyNotification(incoming(body ?? '', '::ffff:127.0.0.1'))).toMatchObject({
      kind: 'update',
    })
  })

  it('when a body claims succeeded for a payment still pending at YooKassa, then the re-fetch wins: open', async () => {
    const started = await provider.startCheckout(checkout())
    const forged = JSON.stringify({
      type: 'notification',
      event: 'payment.succeeded',
      object: { id: started.checkoutId, status: 'succeeded', paid: true, amount: { value: '1.00', currency: 'RUB' } },
    })
    const outcome = await provider.verifyNotification(incoming(forged))
    expect(outcome).toMatchObject({
      kind: 'update',
      event: 'payment.succeeded',
      update: { state: 'open', amount: 1050 },
    })
  })

  it('when the body is not a YooKassa notification, then 400', async () => {
    const bad = [
      'not json',
      '[]',
      JSON.stringify({ type: 'payment', event: 'payment.succeeded', object: { id: 'x' } }),
      JSON.stringify({ type: 'notification', object: { id: 'x' } }),
      JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: {} }),
      JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: '' } }),
    ]
    for (const body of bad)
      await expect(provider.verifyNotification(incoming(body)), body).rejects.toMatchObject({ status: 400 })
  })

  it('when the notification names a payment YooKassa does not know, then 400', async () => {
    const body = JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: randomUUID() } })
    await expect(provider.verifyNotification(incoming(body))).rejects.toMatchObject({
      name: 'NotificationRejected',
      status: 400,
    })
  })

  it('when a refund is notified, then the refund fetched again decides; another event is acknowledged and ignored', async () => {
    const started = await provider.startCheckout(checkout())
    await fake.buyer(started.checkoutId, 'pay')
    const made = await provider.refund({
      ...ref(started.checkoutId),
      invoiceId: 'inv-1' as InvoiceId,
      amount: 100 as Minor,
      currency: 'RUB',
      exponent: 2,
      idempotencyKey: randomUUID(),
      reason: null,
    })
    const bodies = await capture.waitFor(2)
    expect(JSON.parse(String(bodies[1]))).toMatchObject({ event: 'refund.succeeded' })
    // docs/refunds.md#outcomes: as for a payment, YooKassa is asked again (GET /v3/refunds/{id}); the body only names it
    expect(await provider.verifyNotification(incoming(bodies[1] ?? ''))).toEqual({
      kind: 'refund',
      refund: { refundId: made.refundId, state: 'succeeded' },
      event: 'refund.succeeded',
    })
    const unknown = JSON.stringify({
      type: 'notification',
      event: 'refund.succeeded',
      object: { id: 'no-such-refund' },
    })
    await expect(provider.verifyNotification(incoming(unknown))).rejects.toMatchObject({ status: 400 })
    const other = JSON.stringify({ type: 'notification', event: 'payout.succeeded', object: { id: 'po-1' } })
    expect(await provider.verifyNotification(incoming(other))).toEqual({ kind: 'ignored', event: 'payout.succeeded' })
  })

  it('when YooKassa is down during the re-fetch, then provider_unavailable (YooKassa will deliver again)', async () => {
    const started = await provider.startCheckout(checkout())
    fake.setDown('error')
    const body = JSON.stringify({
      type: 'notification',
      event: 'payment.succeeded',
      object: { id: started.checkoutId },
    })
    await expect(provider.verifyNotification(incoming(body))).rejects.toMatchObject({ code: 'provider_unavailable' })
  })

  it('when a declined card or a lapsed hold cancels the payment, then the update says canceled', async () => {
    const declined = await provider.startCheckout(checkout())
    await fake.buyer(declined.checkoutId, 'decline')
    const hold = await provider.startCheckout(checkout({ hold: true }))
    await fake.buyer(hold.checkoutId, 'pay')
    await fake.lapseHold(hold.checkoutId)
    const bodies = await capture.waitFor(3)
    const events = await Promise.all(bodies.map((b) => provider.verifyNotification(incoming(b))))
    expect(events.map((e) => (e.kind === 'update' ? [e.event, e.update.state] : e.kind))).toEqual([
      ['payment.canceled', 'canceled'],
      ['payment.waiting_for_capture', 'canceled'], // the re-fetch: the hold has lapsed since
      ['payment.canceled', 'canceled'],
    ])
    expect(JSON.parse(String(bodies[0])).object.cancellation_details).toEqual({
      party: 'payment_network',
      reason: 'insufficient_funds',
    })
    expect(JSON.parse(String(bodies[2])).object.cancellation_details).toEqual({
      party: 'yoo_money',
      reason: 'expired_on_capture',
    })
  })
})

describe('YooKassa adapter: fetch, capture, release, refund', () => {
  it('when a payment is fetched in each status, then its state follows', async () => {
    const pending = await provider.startCheckout(checkout())
    const hold = await provider.startCheckout(checkout({ hold: true }))
    await fake.buyer(hold.checkoutId, 'pay')
    const paid = await provider.startCheckout(checkout())
    await fake.buyer(paid.checkoutId, 'pay')
    const expired = await provider.startCheckout(checkout())
    await fake.expireCheckout(expired.checkoutId)
    const states = await Promise.all(
      [pending, hold, paid, expired].map(
        async (s) => (await provider.fetchPayment(ref(s.checkoutId), reference)).state,
      ),
    )
    expect(states).toEqual(['open', 'held', 'succeeded', 'canceled'])
    const byCheckoutOnly = await provider.fetchPayment({ checkoutId: paid.checkoutId, paymentId: null }, reference)
    expect(byCheckoutOnly).toMatchObject({ paymentId: paid.checkoutId, state: 'succeeded', amount: 1050 })
  })

  it('when a hold is captured, then YooKassa has it succeeded; the same key again is the same answer', async () => {
    const started = await provider.startCheckout(checkout({ hold: true }))
    await fake.buyer(started.checkoutId, 'pay')
    const payment = held(started.checkoutId)
    await provider.captureHold(payment)
    await provider.captureHold(payment) // a retry with the operation's key
    expect(fake.payments().find((p) => p.id === started.checkoutId)?.status).toBe('succeeded')
  })

  it('when a hold is released, then it is canceled, and a capture after that is refused (provider_error)', async () => {
    const started = await provider.startCheckout(checkout({ hold: true }))
    await fake.buyer(started.checkoutId, 'pay')
    await provider.releaseHold(held(started.checkoutId))
    expect((await provider.fetchPayment(ref(started.checkoutId), reference)).state).toBe('canceled')
    const refused = provider.captureHold(held(started.checkoutId))
    await expect(refused).rejects.toMatchObject({ code: 'provider_error' })
    await expect(refused).rejects.toThrow(/^the acquirer refused: .*canceled/)
  })

  it('when a release follows a capture, or a pending payment is released, then YooKassa refuses', async () => {
    const started = await provider.startCheckout(checkout({ hold: true }))
    await expect(provider.releaseHold(held(started.checkoutId))).rejects.toMatchObject({ code: 'provider_error' })
    await fake.buyer(started.checkoutId, 'pay')
    await provider.captureHold(held(started.checkoutId))
    await expect(provider.releaseHold(held(started.checkoutId))).rejects.toMatchObject({ code: 'provider_error' })
  })

  it('when a payment is refunded in parts, then the sum stays within what was captured', async () => {
    const started = await provider.startCheckout(checkout())
    await fake.buyer(started.checkoutId, 'pay')
    const refund = (amount: number) =>
      provider.refund({
        ...ref(started.checkoutId),
        invoiceId: 'inv-1' as InvoiceId,
        amount: amount as Minor,
        currency: 'RUB',
        exponent: 2,
        idempotencyKey: randomUUID(),
        reason: 'the buyer changed their mind',
      })
    const first = await refund(50)
    expect(first).toEqual({ refundId: expect.any(String), state: 'succeeded' })
    await refund(1000)
    await expect(refund(1)).rejects.toMatchObject({ code: 'provider_error' })
    expect(fake.payments().find((p) => p.id === started.checkoutId)).toMatchObject({ amount: 1050, refunded: 1050 })
  })

  it('when an unpaid payment is refunded, then YooKassa refuses (provider_error)', async () => {
    const started = await provider.startCheckout(checkout())
    await expect(
      provider.refund({
        ...ref(started.checkoutId),
        invoiceId: 'inv-1' as InvoiceId,
        amount: 100 as Minor,
        currency: 'RUB',
        exponent: 2,
        idempotencyKey: randomUUID(),
        reason: null,
      }),
    ).rejects.toMatchObject({ code: 'provider_error' })
  })
})

describe('YooKassa adapter: errors', () => {
  it('when YooKassa answers 5xx, then provider_unavailable', async () => {
    fake.setDown('error')
    await expect(provider.startCheckout(checkout())).rejects.toMatchObject({ code: 'provider_unavailable' })
    await expect(provider.fetchPayment(ref(randomUUID()), reference)).rejects.toMatchObject({
      code: 'provider_unavailable',
    })
  })

  it('when YooKassa hangs past the timeout, then provider_unavailable, and it works again once it is back', async () => {
    const quick = createYooKassaProvider(settingsOf({ timeoutMs: 200 }))
    fake.setDown('hang')
    const started = Date.now()
    await expect(quick.startCheckout(checkout())).rejects.toMatchObject({
      code: 'provider_unavailable',
      message: expect.stringMatching(/200 ms/),
    })
    expect(Date.now() - started).toBeLessThan(2_000)
    fake.setDown(false)
    await expect(quick.startCheckout(checkout())).resolves.toMatchObject({ checkoutId: expect.any(String) })
  })

  it('when nothing listens at the API URL, then provider_unavailable', async () => {
    const nowhere = createYooKassaProvider(settingsOf({ apiUrl: 'http://127.0.0.1:9/v3', timeoutMs: 1_000 }))
    await expect(nowhere.fetchPayment(ref('x'), reference)).rejects.toMatchObject({ code: 'provider_unavailable' })
  })

  it('when the credentials are wrong, then provider_error whose message names neither the shop nor the key', async () => {
    const wrong = createYooKassaProvider(settingsOf({ shopId: '987654', secretKey: 'test_wrongSecretKey123' }))
    const err: unknown = await wrong.startCheckout(checkout()).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'provider_error' })
    expect(String((err as Error).message)).not.toMatch(/987654|test_wrongSecretKey123/)
    expect(JSON.stringify(err)).not.toMatch(/987654|test_wrongSecretKey123/)
  })

  it('when YooKassa echoes the credentials in an error, then the message masks them', async () => {
    const echo = createServer((req, res) => {
      const auth = Buffer.from(String(req.headers.authorization).slice(6), 'base64').toString()
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ type: 'error', code: 'invalid_request', description: `bad shop/key ${auth}` }))
    })
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v3`
    const leaky = createYooKassaProvider(settingsOf({ apiUrl: url, shopId: '555111', secretKey: 'live_S3cretValue' }))
    const err = (await leaky.startCheckout(checkout()).catch((e: unknown) => e)) as Error
    await new Promise<void>((resolve) => echo.close(() => resolve()))
    expect(err).toMatchObject({ code: 'provider_error' })
    expect(err.message).toMatch(/^the acquirer refused: bad shop\/key/)
    expect(err.message).not.toMatch(/555111|live_S3cretValue/)
  })

  it('when YooKassa says it is still processing (202), then the same request is asked again; 429 is unavailable', async () => {
    const seen: { key: string | undefined; body: string }[] = []
    const answers: [number, unknown][] = [
      [202, { type: 'processing', description: 'Request accepted', retry_after: 50 }],
      [
        200,
        {
          id: 'p-1',
          status: 'pending',
          amount: { value: '10.50', currency: 'RUB' },
          confirmation: { type: 'redirect', confirmation_url: 'https://yoomoney.ru/checkout/p-1' },
          metadata: {},
        },
      ],
      [429, { type: 'error', code: 'too_many_requests', description: 'Too many requests' }],
    ]
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        seen.push({ key: req.headers['idempotence-key'] as string | undefined, body: Buffer.concat(chunks).toString() })
        const [status, body] = answers.shift() ?? [500, {}]
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3`
    const slow = createYooKassaProvider(settingsOf({ apiUrl: url }))
    const request = checkout()
    const started = await slow.startCheckout(request)
    const throttled = await slow.startCheckout(checkout()).catch((e: unknown) => e)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(started).toEqual({ checkoutId: 'p-1', paymentId: 'p-1', redirectUrl: 'https://yoomoney.ru/checkout/p-1' })
    expect(seen[0]?.key).toBe(request.idempotencyKey)
    expect(seen[1]).toEqual(seen[0])
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      amount: { value: '10.50', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: request.returnUrl },
      description: 'Order 42',
      metadata: { invoice_id: request.reference.invoiceId, attempt: '1' },
    })
    expect(throttled).toMatchObject({ code: 'provider_unavailable' })
  })

  it('when a POST to the fake has no Idempotence-Key, or a key is reused for another request, then 400', async () => {
    const auth = `Basic ${Buffer.from(`${fake.shopId}:${fake.secretKey}`).toString('base64')}`
    const body = JSON.stringify({
      amount: { value: '1.00', currency: 'RUB' },
      confirmation: { type: 'redirect', return_url: 'http://127.0.0.1:9/' },
    })
    const post = (headers: Record<string, string>, b = body) =>
      fetch(`${fake.apiUrl}/payments`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json', ...headers },
        body: b,
      })
    const missing = await post({})
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ type: 'error', code: 'invalid_request', parameter: 'Idempotence-Key' })
    const key = randomUUID()
    expect((await post({ 'idempotence-key': key })).status).toBe(200)
    expect((await post({ 'idempotence-key': key }, body.replace('1.00', '2.00'))).status).toBe(400)
    const unauthorised = await fetch(`${fake.apiUrl}/payments/x`, { headers: { authorization: 'Basic eDp5' } })
    expect(unauthorised.status).toBe(401)
    expect(await unauthorised.json()).toMatchObject({ type: 'error', code: 'invalid_credentials' })
  })
})

describe('YooKassa adapter: settings', () => {
  it("when the published sender ranges are used, then every entry parses and YooKassa's addresses are in", () => {
    for (const source of YOOKASSA_NOTIFICATION_SOURCES) expect(parseIpRange(source), source).toBeDefined()
    const published = createYooKassaProvider(settingsOf({ notificationSources: YOOKASSA_NOTIFICATION_SOURCES }))
    const body = JSON.stringify({ type: 'notification', event: 'payout.succeeded', object: { id: 'r' } })
    return Promise.all([
      expect(published.verifyNotification(incoming(body, '185.71.76.17'))).resolves.toMatchObject({ kind: 'ignored' }),
      expect(published.verifyNotification(incoming(body, '2a02:5180::9'))).resolves.toMatchObject({ kind: 'ignored' }),
      expect(published.verifyNotification(incoming(body, '127.0.0.1'))).rejects.toMatchObject({ status: 401 }),
    ])
  })

  it('when a configured source is not a range, then the provider is not created', () => {
    expect(() => createYooKassaProvider(settingsOf({ notificationSources: ['185.71.76.0/33'] }))).toThrow(
      /185.71.76.0\/33/,
    )
  })

  it('declares its name, capabilities and currencies', () => {
    expect(provider.name).toBe('yookassa')
    expect(provider.capabilities).toEqual({ checkout: true, simulate: false, hold: true, refund: true, fetch: true })
    expect(provider.currencies).toEqual(['RUB'])
    const request = { invoiceId: 'inv-1' as InvoiceId, amount: 1 as Minor, currency: 'RUB', service: 's', payUrl: 'u' }
    expect(provider.createPayment(request)).toEqual({ url: 'u', qrData: 'u' })
  })
})

describe('fake YooKassa: notification controls', () => {
  it('when notifications are dropped, paused, released in another order and replayed, then delivery follows', async () => {
    const a = await provider.startCheckout(checkout())
    const b = await provider.startCheckout(checkout())
    const c = await provider.startCheckout(checkout())
    fake.dropNotifications(1)
    await fake.buyer(a.checkoutId, 'pay')
    expect(capture.bodies).toHaveLength(0)
    fake.pauseNotifications()
    await fake.buyer(b.checkoutId, 'pay')
    await fake.buyer(c.checkoutId, 'pay')
    expect(capture.bodies).toHaveLength(0)
    await fake.releaseNotifications([1, 0])
    const ids = capture.bodies.map((x) => JSON.parse(String(x)).object.id as string)
    expect(ids).toEqual([c.checkoutId, b.checkoutId])
    const sentBefore = fake.deliveries.length
    await fake.replayNotifications()
    expect(fake.deliveries.length - sentBefore).toBeGreaterThanOrEqual(2)
    expect(capture.bodies.slice(2).map((x) => JSON.parse(String(x)).object.id)).toEqual(
      expect.arrayContaining([c.checkoutId, b.checkoutId]),
    )
  })
})
