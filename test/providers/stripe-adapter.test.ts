/**
 * The Stripe adapter through the official SDK, over real HTTP, against the stateful fake (test/fakes/stripe): no
 * module mocking. Events reach a tiny local receiver exactly as the fake POSTed them (signed by hand, with the
 * real scheme), and the adapter verifies those bytes.
 */
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createStripeProvider, type StripeSettings } from '../../src/adapters/providers/stripe/stripe-provider.js'
import { AppError } from '../../src/domain/errors.js'
import type { InvoiceId } from '../../src/domain/ids.js'
import { asMinor } from '../../src/domain/money.js'
import {
  NotificationRejected,
  type CheckoutRequest,
  type NotificationOutcome,
  type PaymentProvider,
} from '../../src/ports/payment-provider.js'
import { startFakeStripe, type FakeStripe } from '../fakes/stripe/fake-stripe.js'

interface Delivered {
  readonly headers: IncomingHttpHeaders
  readonly rawBody: Buffer
  readonly type: string
}

/** The notification endpoint: records every POST and answers 200. */
async function startSink(): Promise<{
  url: string
  received: Delivered[]
  close: () => Promise<void>
  server: Server
}> {
  const received: Delivered[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks)
      received.push({
        headers: req.headers,
        rawBody,
        type: (JSON.parse(rawBody.toString('utf8')) as { type: string }).type,
      })
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/providers/stripe/notifications`,
    received,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const INVOICE = '0192f0a0-0000-7000-8000-000000000001' as InvoiceId
const MINUTE = 60_000

describe('the Stripe adapter against the fake Stripe API', () => {
  let fake: FakeStripe
  let sink: Awaited<ReturnType<typeof startSink>>
  let stripe: PaymentProvider
  let settings: StripeSettings
  let n = 0

  beforeAll(async () => {
    sink = await startSink()
  })
  afterAll(async () => sink.close())

  beforeEach(async () => {
    fake = await startFakeStripe()
    fake.setNotificationUrl(sink.url)
    sink.received.length = 0
    settings = {
      secretKey: fake.secretKey,
      webhookSecret: fake.webhookSecret,
      apiUrl: fake.apiUrl,
      timeoutMs: 2_000,
      webhookToleranceSeconds: 300,
    }
    stripe = createStripeProvider(settings)
  })
  afterEach(async () => fake.close())

  const checkout = (over: Partial<CheckoutRequest> = {}): CheckoutRequest => {
    n += 1
    const now = new Date()
    return {
      reference: { invoiceId: INVOICE, attempt: 1 },
      idempotencyKey: `checkout-${n}`,
      amount: asMinor(1050),
      currency: 'USD',
      exponent: 2,
      service: 'card',
      hold: false,
      description: 'Order 42',
      returnUrl: 'http://shop.test/pay/abc',
      expiresAt: new Date(now.getTime() + 2 * 60 * MINUTE),
      now,
      ...over,
    }
  }

  /** What the adapter makes of the delivered events of `type` (the last one unless `index`). */
  const verified = async (type: string, index = -1): Promise<NotificationOutcome> => {
    await fake.settled()
    const all = sink.received.filter((d) => d.type === type)
    const d = all.at(index)
    if (d === undefined) throw new Error(`no ${type} was delivered; got ${sink.received.map((x) => x.type).join(', ')}`)
    return stripe.verifyNotification({
      rawBody: d.rawBody,
      headers: d.headers as never,
      remoteAddress: '127.0.0.1',
      now: new Date(),
    })
  }

  const caught = async (p: Promise<unknown>): Promise<unknown> =>
    p.then(
      () => expect.unreachable('expected a rejection'),
      (e: unknown) => e,
    )

  describe('checkout', () => {
    it('creates a Checkout Session as the brief asks: one line item, metadata on both, our return URL', async () => {
      const started = await stripe.startCheckout(checkout({ hold: true }))
      expect(started.checkoutId).toMatch(/^cs_test_/)
      expect(started.paymentId).toBeNull()
      expect(started.redirectUrl).toBe(`${fake.apiUrl}/c/pay/${started.checkoutId}`)
      const [session] = fake.sessions()
      expect(session).toMatchObject({
        id: started.checkoutId,
        mode: 'payment',
        amount_total: 1050,
        currency: 'usd',
        client_reference_id: INVOICE,
        metadata: { invoice_id: INVOICE, attempt: '1' },
        success_url: 'http://shop.test/pay/abc',
        cancel_url: 'http://shop.test/pay/abc',
        status: 'open',
        payment_intent: null,
      })
      await fake.buyer(started.checkoutId, 'pay')
      expect(fake.payments()).toEqual([
        expect.objectContaining({
          checkoutId: started.checkoutId,
          status: 'requires_capture', // capture_method=manual
          amount: 1050,
          metadata: { invoice_id: INVOICE, attempt: '1' },
        }),
      ])
    })

    it('makes one session per idempotency key, even for two concurrent calls', async () => {
      const request = checkout()
      const [a, b] = await Promise.all([stripe.startCheckout(request), stripe.startCheckout(request)])
      expect(a.checkoutId).toBe(b.checkoutId)
      expect(fake.createdCount).toBe(1)
      await stripe.startCheckout(request) // a reload later
      expect(fake.createdCount).toBe(1)
      await stripe.startCheckout(checkout({ reference: { invoiceId: INVOICE, attempt: 2 } }))
      expect(fake.createdCount).toBe(2)
      expect(fake.requests.filter((r) => r.method === 'POST').map((r) => r.idempotencyKey)).toEqual([
        request.idempotencyKey,
        request.idempotencyKey,
        request.idempotencyKey,
        `checkout-${n}`,
      ])
    })

    it('refuses a reused idempotency key with other parameters (provider_error), creating nothing', async () => {
      const request = checkout()
      await stripe.startCheckout(request)
      const error = await caught(stripe.startCheckout({ ...request, amount: asMinor(2000) }))
      expect(error).toBeInstanceOf(AppError)
      expect(error).toMatchObject({
        code: 'provider_error',
        message: expect.stringMatching(/^the acquirer refused: Keys for idempotent/),
      })
      expect(fake.createdCount).toBe(1)
    })

    it("clamps the session's expiry into Stripe's 30 minutes … 24 hours", async () => {
      const now = new Date()
      const s = (date: Date) => Math.floor(date.getTime() / 1000)
      await stripe.startCheckout(checkout({ now, expiresAt: new Date(now.getTime() + 5 * MINUTE) }))
      await stripe.startCheckout(checkout({ now, expiresAt: new Date(now.getTime() + 3 * 24 * 60 * MINUTE) }))
      await stripe.startCheckout(checkout({ now, expiresAt: new Date(now.getTime() + 120 * MINUTE) }))
      expect(fake.sessions().map((x) => x['expires_at'])).toEqual([
        s(now) + 31 * 60,
        s(now) + 24 * 3600 - 60,
        s(new Date(now.getTime() + 120 * MINUTE)),
      ])
    })

    it('sends amounts in Stripe units: JPY as is, MGA without decimals, ISK with two', async () => {
      await stripe.startCheckout(checkout({ currency: 'JPY', exponent: 0, amount: asMinor(500) }))
      await stripe.startCheckout(checkout({ currency: 'MGA', exponent: 2, amount: asMinor(1500) }))
      await stripe.startCheckout(checkout({ currency: 'ISK', exponent: 0, amount: asMinor(5) }))
      expect(fake.sessions().map((x) => [x['currency'], x['amount_total']])).toEqual([
        ['jpy', 500],
        ['mga', 15],
        ['isk', 500],
      ])
    })

    it('names the product after the invoice when there is no description (Stripe requires a name)', async () => {
      await expect(stripe.startCheckout(checkout({ description: '' }))).resolves.toMatchObject({
        checkoutId: expect.stringMatching(/^cs_test_/),
      })
    })

    it('refuses an amount Stripe cannot charge before any request (validation_failed naming amount)', async () => {
      const error = await caught(
        stripe.startCheckout(checkout({ currency: 'KWD', exponent: 3, amount: asMinor(5124) })),
      )
      expect(error).toMatchObject({ code: 'validation_failed', errors: [{ field: 'amount' }] })
      expect(fake.requests).toEqual([])
      const payUrl = 'http://shop.test/pay/abc'
      const create = (amount: number) =>
        stripe.createPayment({ invoiceId: INVOICE, amount: asMinor(amount), currency: 'KWD', service: 'card', payUrl })
      expect(() => create(5124)).toThrow(AppError)
      expect(create(5120)).toEqual({ url: payUrl, qrData: payUrl })
    })
  })

  describe('notifications', () => {
    it('a hold: payment_intent.amount_capturable_updated → held, in our units, with our reference', async () => {
      const started = await stripe.startCheckout(
        checkout({ hold: true, currency: 'MGA', exponent: 2, amount: asMinor(1500) }),
      )
      await fake.buyer(started.checkoutId, 'pay')
      const [payment] = fake.payments()
      expect(await verified('payment_intent.amount_capturable_updated')).toEqual({
        kind: 'update',
        event: 'payment_intent.amount_capturable_updated',
        update: {
          reference: { invoiceId: INVOICE, attempt: 1 },
          checkoutId: null,
          paymentId: payment?.id,
          state: 'held',
          amount: 1500,
          currency: 'MGA',
        },
      })
      expect(await verified('checkout.session.completed')).toEqual({
        kind: 'ignored',
        event: 'checkout.session.completed',
      })
    })

    it('a payment: payment_intent.succeeded → succeeded', async () => {
      const started = await stripe.startCheckout(checkout())
      await fake.buyer(started.checkoutId, 'pay')
      expect(await verified('payment_intent.succeeded')).toMatchObject({
        kind: 'update',
        update: { state: 'succeeded', amount: 1050, currency: 'USD', reference: { invoiceId: INVOICE, attempt: 1 } },
      })
    })

    it('a declined card leaves the attempt open; the buyer may pay next', async () => {
      const started = await stripe.startCheckout(checkout())
      await fake.buyer(started.checkoutId, 'decline')
      expect(await verified('payment_intent.payment_failed')).toMatchObject({ update: { state: 'open' } })
      await fake.buyer(started.checkoutId, 'pay')
      expect(await verified('payment_intent.succeeded')).toMatchObject({ update: { state: 'succeeded' } })
      expect(fake.payments()).toHaveLength(1)
    })

    it('an expired session → ended (no amount); its declined PaymentIntent → canceled', async () => {
      const started = await stripe.startCheckout(checkout())
      await fake.buyer(started.checkoutId, 'decline')
      await fake.expireCheckout(started.checkoutId)
      expect(await verified('payment_intent.canceled')).toMatchObject({ update: { state: 'canceled' } })
      expect(await verified('checkout.session.expired')).toEqual({
        kind: 'update',
        event: 'checkout.session.expired',
        update: {
          reference: { invoiceId: INVOICE, attempt: 1 },
          checkoutId: started.checkoutId,
          paymentId: fake.payments()[0]?.id,
          state: 'ended',
          amount: null,
          currency: 'USD',
        },
      })
    })

    it('a hold the acquirer lets lapse → canceled', async () => {
      const started = await stripe.startCheckout(checkout({ hold: true }))
      await fake.buyer(started.checkoutId, 'pay')
      await fake.lapseHold(fake.payments()[0]?.id ?? '')
      expect(await verified('payment_intent.canceled')).toMatchObject({ update: { state: 'canceled' } })
    })

    describe('verification', () => {
      let body: Buffer
      const at = (seconds: number) => new Date(seconds * 1000)
      const sign = (payload: Buffer | string, t: number, secret = settings.webhookSecret) =>
        `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${payload.toString()}`).digest('hex')}`
      const verify = (rawBody: Buffer, signature: string | undefined, now = new Date()) =>
        stripe.verifyNotification({
          rawBody,
          headers: signature === undefined ? {} : { 'stripe-signature': signature },
          remoteAddress: '127.0.0.1',
          now,
        })
      const rejection = async (p: Promise<unknown>) => {
        const e = await caught(p)
        expect(e).toBeInstanceOf(NotificationRejected)
        return (e as NotificationRejected).status
      }

      beforeEach(async () => {
        const started = await stripe.startCheckout(checkout())
        await fake.buyer(started.checkoutId, 'pay')
        await fake.settled()
        body = sink.received[0]?.rawBody ?? Buffer.alloc(0)
      })

      it('accepts what the fake signed, and the same bytes signed again by hand', async () => {
        const t = Math.floor(Date.now() / 1000)
        expect(await verify(body, sign(body, t))).toMatchObject({ kind: 'update' })
      })

      it('refuses no header, a forged signature, a tampered body, a stale timestamp: 401', async () => {
        const t = Math.floor(Date.now() / 1000)
        expect(await rejection(verify(body, undefined))).toBe(401)
        expect(await rejection(verify(body, sign(body, t, 'whsec_not_the_secret')))).toBe(401)
        expect(await rejection(verify(Buffer.from(body.toString().replace('1050', '1')), sign(body, t)))).toBe(401)
        expect(await rejection(verify(body, sign(body, t - 301), at(t)))).toBe(401)
        expect(await rejection(verify(body, 'garbage'))).toBe(401)
        expect(await verify(body, sign(body, t - 299), at(t))).toMatchObject({ kind: 'update' })
      })

      it('refuses a signed body that is not an event: 400', async () => {
        const t = Math.floor(Date.now() / 1000)
        const notJson = Buffer.from('{"id": "evt_1", "object": "event", ')
        expect(await rejection(verify(notJson, sign(notJson, t)))).toBe(400)
        const noObject = Buffer.from('{"id":"evt_1","object":"event","type":"payment_intent.succeeded","data":{}}')
        expect(await rejection(verify(noObject, sign(noObject, t)))).toBe(400)
      })

      it('acknowledges an event outside the mapping as ignored', async () => {
        const t = Math.floor(Date.now() / 1000)
        const other = Buffer.from(
          JSON.stringify({ id: 'evt_2', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1' } } }),
        )
        expect(await verify(other, sign(other, t))).toEqual({ kind: 'ignored', event: 'customer.created' })
      })
    })
  })

  describe('fetchPayment', () => {
    const reference = { invoiceId: INVOICE, attempt: 1 }

    it('follows a session from open to held (by checkout id, then by payment id) to succeeded', async () => {
      const started = await stripe.startCheckout(checkout({ hold: true }))
      const byCheckout = { checkoutId: started.checkoutId, paymentId: null }
      expect(await stripe.fetchPayment(byCheckout, reference)).toEqual({
        reference,
        checkoutId: started.checkoutId,
        paymentId: null,
        state: 'open',
        amount: null,
        currency: 'USD',
      })
      await fake.buyer(started.checkoutId, 'decline')
      expect(await stripe.fetchPayment(byCheckout, reference)).toMatchObject({
        state: 'open',
        paymentId: expect.stringMatching(/^pi_/),
      })
      await fake.buyer(started.checkoutId, 'pay')
      const paymentId = fake.payments()[0]?.id ?? ''
      expect(await stripe.fetchPayment(byCheckout, reference)).toEqual({
        reference,
        checkoutId: started.checkoutId,
        paymentId,
        state: 'held',
        amount: 1050,
        currency: 'USD',
      })
      const byPayment = { checkoutId: started.checkoutId, paymentId }
      expect(await stripe.fetchPayment(byPayment, reference)).toMatchObject({ state: 'held', amount: 1050 })
      await stripe.captureHold({
        ...byPayment,
        invoiceId: INVOICE,
        amount: asMinor(1050),
        currency: 'USD',
        exponent: 2,
        service: 'card',
        idempotencyKey: 'cap-1',
      })
      expect(await stripe.fetchPayment(byPayment, reference)).toMatchObject({ state: 'succeeded', amount: 1050 })
    })

    it('an expired session without payment → ended; a released hold → canceled', async () => {
      const a = await stripe.startCheckout(checkout())
      await fake.expireCheckout(a.checkoutId)
      expect(await stripe.fetchPayment({ checkoutId: a.checkoutId, paymentId: null }, reference)).toMatchObject({
        state: 'ended',
        amount: null,
      })
      const b = await stripe.startCheckout(checkout({ hold: true }))
      await fake.buyer(b.checkoutId, 'pay')
      const paymentId = fake.payments()[0]?.id ?? ''
      await fake.lapseHold(paymentId)
      expect(await stripe.fetchPayment({ checkoutId: b.checkoutId, paymentId }, reference)).toMatchObject({
        state: 'canceled',
      })
    })

    it('an unknown payment → provider_error', async () => {
      const error = await caught(stripe.fetchPayment({ checkoutId: null, paymentId: 'pi_nope' }, reference))
      expect(error).toMatchObject({
        code: 'provider_error',
        message: "the acquirer refused: No such payment_intent: 'pi_nope'",
      })
    })
  })

  describe('capture, release, refund', () => {
    const held = async () => {
      const started = await stripe.startCheckout(checkout({ hold: true }))
      await fake.buyer(started.checkoutId, 'pay')
      const payment = {
        checkoutId: started.checkoutId,
        paymentId: fake.payments()[0]?.id ?? '',
        invoiceId: INVOICE,
        amount: asMinor(1050),
        currency: 'USD',
        exponent: 2,
        service: 'card',
      }
      return payment
    }

    it('captures a hold (found through its session when the payment id is not known yet)', async () => {
      const payment = await held()
      await stripe.captureHold({ ...payment, paymentId: null, idempotencyKey: 'capture-1' })
      expect(fake.payments()[0]).toMatchObject({ status: 'succeeded' })
      expect(await verified('payment_intent.succeeded')).toMatchObject({ update: { state: 'succeeded', amount: 1050 } })
      await stripe.captureHold({ ...payment, idempotencyKey: 'capture-1' }) // a retry: the same answer, replayed
    })

    it('releases a hold; a capture after it is refused (provider_error), and so is a release after a capture', async () => {
      const payment = await held()
      await stripe.releaseHold({ ...payment, idempotencyKey: 'release-1' })
      expect(fake.payments()[0]).toMatchObject({ status: 'canceled' })
      expect(await verified('payment_intent.canceled')).toMatchObject({ update: { state: 'canceled' } })
      const error = await caught(stripe.captureHold({ ...payment, idempotencyKey: 'capture-1' }))
      expect(error).toMatchObject({ code: 'provider_error', message: expect.stringMatching(/status of canceled/) })

      const other = await (async () => {
        fake.payments() // a second hold on a new session
        const started = await stripe.startCheckout(checkout({ hold: true }))
        await fake.buyer(started.checkoutId, 'pay')
        return { ...payment, checkoutId: started.checkoutId, paymentId: fake.payments()[1]?.id ?? '' }
      })()
      await stripe.captureHold({ ...other, idempotencyKey: 'capture-2' })
      const late = await caught(stripe.releaseHold({ ...other, idempotencyKey: 'release-2' }))
      expect(late).toMatchObject({ code: 'provider_error', message: expect.stringMatching(/status of succeeded/) })
    })

    it('refunds in part, then the rest; more than was paid is refused', async () => {
      const started = await stripe.startCheckout(checkout())
      await fake.buyer(started.checkoutId, 'pay')
      const ref = { checkoutId: started.checkoutId, paymentId: fake.payments()[0]?.id ?? '' }
      const refund = (amount: number, key: string) =>
        stripe.refund({
          ...ref,
          invoiceId: INVOICE,
          amount: asMinor(amount),
          currency: 'USD',
          exponent: 2,
          idempotencyKey: key,
          reason: 'damaged',
        })
      const first = await refund(300, 'refund-1')
      expect(first).toEqual({ refundId: expect.stringMatching(/^re_/), state: 'succeeded' })
      expect(await refund(300, 'refund-1')).toEqual(first) // the same key: the same refund
      const error = await caught(refund(800, 'refund-2'))
      expect(error).toMatchObject({ code: 'provider_error', message: expect.stringMatching(/greater than unrefunded/) })
      await refund(750, 'refund-3')
      expect(fake.payments()[0]).toMatchObject({ refunded: 1050 })
      // docs/refunds.md#outcomes: fetched by its id, and notified as refund.created with the Refund
      expect(await stripe.fetchRefund(first.refundId)).toEqual(first)
      expect(await verified('refund.created', 0)).toEqual({ kind: 'refund', refund: first, event: 'refund.created' })
      expect(await caught(stripe.fetchRefund('re_missing'))).toMatchObject({ code: 'provider_error' })
    })

    it('a refund refused outright (a disputed charge) → provider_error with its message', async () => {
      const started = await stripe.startCheckout(checkout())
      await fake.buyer(started.checkoutId, 'pay')
      fake.refuseNextRefund()
      const error = await caught(
        stripe.refund({
          checkoutId: started.checkoutId,
          paymentId: fake.payments()[0]?.id ?? '',
          invoiceId: INVOICE,
          amount: asMinor(100),
          currency: 'USD',
          exponent: 2,
          idempotencyKey: 'refund-refused',
          reason: null,
        }),
      )
      expect(error).toMatchObject({ code: 'provider_error', message: expect.stringMatching(/charged back/) })
    })
  })

  describe('errors', () => {
    it('the acquirer down (503) → provider_unavailable; back up → works again', async () => {
      fake.setDown('error')
      const error = await caught(stripe.startCheckout(checkout()))
      expect(error).toMatchObject({ code: 'provider_unavailable' })
      fake.setDown(false)
      await stripe.startCheckout(checkout())
      expect(fake.createdCount).toBe(1)
    })

    it('the acquirer hanging past the timeout → provider_unavailable, soon', async () => {
      stripe = createStripeProvider({ ...settings, timeoutMs: 300 })
      fake.setDown('hang')
      const started = Date.now()
      const error = await caught(
        stripe.fetchPayment({ checkoutId: null, paymentId: 'pi_x' }, { invoiceId: INVOICE, attempt: 1 }),
      )
      expect(error).toMatchObject({ code: 'provider_unavailable' })
      expect(Date.now() - started).toBeLessThan(5_000)
      fake.setDown(false)
    })

    it('nothing listening → provider_unavailable', async () => {
      const url = fake.apiUrl
      await fake.close()
      fake = await startFakeStripe()
      stripe = createStripeProvider({ ...settings, apiUrl: url })
      const error = await caught(stripe.startCheckout(checkout()))
      expect(error).toMatchObject({ code: 'provider_unavailable' })
    })

    it('a wrong secret key → provider_error that never shows the key, not even masked', async () => {
      const secretKey = 'sk_test_51WrongKeyWrongKeyWrongKey0123456789abcdef'
      stripe = createStripeProvider({ ...settings, secretKey })
      const error = await caught(stripe.startCheckout(checkout()))
      expect(error).toMatchObject({ code: 'provider_error' })
      const text = `${(error as Error).message} ${JSON.stringify(error)} ${String((error as Error).stack)}`
      expect(text).not.toContain(secretKey)
      expect(text).not.toContain(secretKey.slice(-4))
      expect(text).not.toContain('sk_test_')
      expect(text).not.toContain(fake.secretKey)
    })
  })
})
