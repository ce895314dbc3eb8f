/**
 * The Stripe adapter against Stripe's real test mode (https://docs.stripe.com/test-mode): runs only when
 * STRIPE_TEST_SECRET_KEY (an `sk_test_…` key) is set, and is the one kind of test CI may leave out. It creates a
 * Checkout Session and fetches it back; the session simply expires at Stripe after its 30 minutes.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createStripeProvider } from '../../src/adapters/providers/stripe/stripe-provider.js'
import type { InvoiceId } from '../../src/domain/ids.js'
import { asMinor } from '../../src/domain/money.js'

const secretKey = (process.env['STRIPE_TEST_SECRET_KEY'] ?? '').trim()

describe.skipIf(secretKey === '')("the Stripe adapter against Stripe's test mode", () => {
  const settings = {
    secretKey,
    webhookSecret: process.env['STRIPE_TEST_WEBHOOK_SECRET'] ?? 'whsec_unused',
    apiUrl: 'https://api.stripe.com',
    timeoutMs: 20_000,
    webhookToleranceSeconds: 300,
  }

  it('is given a test-mode key, never a live one', () => {
    expect(secretKey.startsWith('sk_test_') || secretKey.startsWith('rk_test_')).toBe(true)
  })

  it('creates a Checkout Session once per idempotency key and fetches it open', async () => {
    const stripe = createStripeProvider(settings)
    const invoiceId = randomUUID() as InvoiceId
    const now = new Date()
    const request = {
      reference: { invoiceId, attempt: 1 },
      idempotencyKey: `live-test-${invoiceId}`,
      amount: asMinor(1050),
      currency: 'USD',
      exponent: 2,
      service: 'card',
      hold: true,
      description: 'invoice-service live test',
      returnUrl: 'https://example.com/pay/live-test',
      expiresAt: new Date(now.getTime() + 60 * 60_000),
      now,
    }
    const started = await stripe.startCheckout(request)
    expect(started.checkoutId).toMatch(/^cs_test_/)
    expect(started.redirectUrl).toMatch(/^https:\/\/checkout\.stripe\.com\//)
    expect((await stripe.startCheckout(request)).checkoutId).toBe(started.checkoutId)
    const update = await stripe.fetchPayment({ checkoutId: started.checkoutId, paymentId: null }, request.reference)
    expect(update).toEqual({
      reference: request.reference,
      checkoutId: started.checkoutId,
      paymentId: null,
      state: 'open',
      amount: null,
      currency: 'USD',
    })
  })

  it('a wrong key is provider_error, and the key is nowhere in it', async () => {
    const wrong = `${secretKey.slice(0, 12)}WRONG${randomUUID().replaceAll('-', '')}`
    const stripe = createStripeProvider({ ...settings, secretKey: wrong })
    const error = await stripe
      .fetchPayment(
        { checkoutId: null, paymentId: 'pi_none' },
        {
          invoiceId: randomUUID() as InvoiceId,
          attempt: 1,
        },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(error).toMatchObject({ code: 'provider_error' })
    expect(String((error as Error).message)).not.toContain(wrong.slice(-4))
    expect(String((error as Error).message)).not.toContain(secretKey.slice(-4))
  })
})
