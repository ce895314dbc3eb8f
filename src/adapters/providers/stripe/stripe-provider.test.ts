import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { NotificationRejected } from '../../../ports/payment-provider.js'
import { createStripeProvider } from './stripe-provider.js'

// No network here: events are signed by hand (https://docs.stripe.com/webhooks#verify-manually) and verified.
// The adapter against a Stripe API (the fake) is test/providers/stripe-adapter.test.ts.
const WEBHOOK_SECRET = 'whsec_unit_test_secret'
const stripe = createStripeProvider({
  secretKey: 'sk_test_unit',
  webhookSecret: WEBHOOK_SECRET,
  apiUrl: 'http://127.0.0.1:9',
  timeoutMs: 1000,
  webhookToleranceSeconds: 300,
})
const NOW = new Date('2026-05-01T12:00:00Z')

function notification(type: string, object: Record<string, unknown>) {
  const rawBody = Buffer.from(JSON.stringify({ id: 'evt_1', object: 'event', type, data: { object } }))
  const t = Math.floor(NOW.getTime() / 1000)
  const v1 = createHmac('sha256', WEBHOOK_SECRET).update(`${t}.${rawBody.toString()}`).digest('hex')
  return { rawBody, headers: { 'stripe-signature': `t=${t},v1=${v1}` }, remoteAddress: '127.0.0.1', now: NOW }
}

const pi = (over: Record<string, unknown>) => ({
  id: 'pi_1',
  object: 'payment_intent',
  amount: 500,
  amount_capturable: 0,
  amount_received: 0,
  currency: 'jpy',
  metadata: { invoice_id: 'inv-1', attempt: '2' },
  status: 'requires_payment_method',
  ...over,
})

describe('the Stripe adapter: events to updates (docs/providers.md#status-mapping)', () => {
  it.each([
    ['payment_intent.amount_capturable_updated', { status: 'requires_capture', amount_capturable: 500 }, 'held'],
    ['payment_intent.succeeded', { status: 'succeeded', amount_received: 500 }, 'succeeded'],
    ['payment_intent.canceled', { status: 'canceled' }, 'canceled'],
    ['payment_intent.payment_failed', { status: 'requires_payment_method' }, 'open'],
  ] as const)('%s → %s', async (type, over, state) => {
    expect(await stripe.verifyNotification(notification(type, pi(over)))).toEqual({
      kind: 'update',
      event: type,
      update: {
        reference: { invoiceId: 'inv-1', attempt: 2 },
        checkoutId: null,
        paymentId: 'pi_1',
        state,
        amount: 500, // JPY: zero-decimal at Stripe and in ISO 4217
        currency: 'JPY',
      },
    })
  })

  it('checkout.session.expired → ended; checkout.session.completed and others → ignored', async () => {
    const session = {
      id: 'cs_1',
      object: 'checkout.session',
      status: 'expired',
      payment_intent: null,
      currency: 'eur',
      metadata: { invoice_id: 'inv-1', attempt: '1' },
    }
    expect(await stripe.verifyNotification(notification('checkout.session.expired', session))).toEqual({
      kind: 'update',
      event: 'checkout.session.expired',
      update: {
        reference: { invoiceId: 'inv-1', attempt: 1 },
        checkoutId: 'cs_1',
        paymentId: null,
        state: 'ended',
        amount: null,
        currency: 'EUR',
      },
    })
    const completed = { ...session, status: 'complete', payment_intent: 'pi_1' }
    expect(await stripe.verifyNotification(notification('checkout.session.completed', completed))).toEqual({
      kind: 'ignored',
      event: 'checkout.session.completed',
    })
    expect(await stripe.verifyNotification(notification('charge.refunded', { id: 'ch_1' }))).toEqual({
      kind: 'ignored',
      event: 'charge.refunded',
    })
  })

  it('a payment without our metadata has no reference (not one of ours)', async () => {
    for (const metadata of [{}, { invoice_id: 'inv-1' }, { invoice_id: 'inv-1', attempt: 'x' }]) {
      const outcome = await stripe.verifyNotification(notification('payment_intent.succeeded', pi({ metadata })))
      expect(outcome).toMatchObject({ kind: 'update', update: { reference: undefined } })
    }
  })

  it('refuses an event whose object is not what its type says: 400', async () => {
    const bad = notification('payment_intent.succeeded', { id: 'pi_1' })
    await expect(stripe.verifyNotification(bad)).rejects.toEqual(expect.any(NotificationRejected))
    await expect(stripe.verifyNotification(bad)).rejects.toMatchObject({ status: 400 })
  })

  it('refuses two Stripe-Signature headers, or an empty one: 401', async () => {
    const n = notification('payment_intent.succeeded', pi({}))
    const twice = { ...n, headers: { 'stripe-signature': [n.headers['stripe-signature'], 't=1,v1=00'] } }
    await expect(stripe.verifyNotification(twice)).rejects.toMatchObject({ status: 401 })
    await expect(stripe.verifyNotification({ ...n, headers: { 'stripe-signature': '' } })).rejects.toMatchObject({
      status: 401,
    })
  })

  it('creates payments locally: the hosted page is the link and the QR code', () => {
    const payUrl = 'https://pay.example/pay/inv-1'
    expect(
      stripe.createPayment({
        invoiceId: 'inv-1' as never,
        amount: 100 as never,
        currency: 'USD',
        service: 'card',
        payUrl,
      }),
    ).toEqual({ url: payUrl, qrData: payUrl })
    expect(stripe.capabilities).toEqual({ checkout: true, simulate: false, hold: true, refund: true, fetch: true })
    expect(stripe.name).toBe('stripe')
  })
})
