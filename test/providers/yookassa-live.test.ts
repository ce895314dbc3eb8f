/**
 * The YooKassa adapter against YooKassa itself, with a test shop's credentials (https://yookassa.ru/developers/using-api/testing):
 * runs only when YOOKASSA_TEST_SHOP_ID and YOOKASSA_TEST_SECRET_KEY are set, the one kind of test CI may leave out.
 * Nobody pays here (that needs a browser at YooKassa's page), so it checks what a shop can do alone: an idempotent
 * checkout, the fetch, the re-fetch of a notification, and YooKassa's refusals.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createYooKassaProvider, YOOKASSA_API_URL } from '../../src/adapters/providers/yookassa/yookassa-provider.js'
import type { InvoiceId } from '../../src/domain/ids.js'
import type { Minor } from '../../src/domain/money.js'
import type { CheckoutRequest } from '../../src/ports/payment-provider.js'

const shopId = process.env['YOOKASSA_TEST_SHOP_ID'] ?? ''
const secretKey = process.env['YOOKASSA_TEST_SECRET_KEY'] ?? ''
const configured = shopId !== '' && secretKey !== ''

describe.skipIf(!configured)('YooKassa adapter against the YooKassa test shop', () => {
  const settings = {
    shopId,
    secretKey,
    apiUrl: process.env['YOOKASSA_TEST_API_URL'] ?? YOOKASSA_API_URL,
    timeoutMs: 15_000,
    notificationSources: ['127.0.0.1/32'],
  }
  const provider = createYooKassaProvider(settings)
  const now = new Date()
  const checkout = (hold: boolean): CheckoutRequest => ({
    reference: { invoiceId: `live-${randomUUID()}` as InvoiceId, attempt: 1 },
    idempotencyKey: randomUUID(),
    amount: 10050 as Minor,
    currency: 'RUB',
    exponent: 2,
    service: 'live-test',
    hold,
    description: 'merchant-invoice-service live test',
    returnUrl: 'https://example.com/pay/live-test',
    expiresAt: new Date(now.getTime() + 3600_000),
    now,
  })

  it('when a checkout is started twice with one key, then one payment, pending, with our reference', async () => {
    const request = checkout(true)
    const first = await provider.startCheckout(request)
    const again = await provider.startCheckout(request)
    expect(again.checkoutId).toBe(first.checkoutId)
    expect(first.redirectUrl).toMatch(/^https:\/\//)
    const update = await provider.fetchPayment(
      { checkoutId: first.checkoutId, paymentId: first.paymentId },
      request.reference,
    )
    expect(update).toMatchObject({ state: 'open', amount: 10050, currency: 'RUB', reference: request.reference })
  })

  it('when a notification claims the payment succeeded, then the re-fetch from YooKassa says open', async () => {
    const started = await provider.startCheckout(checkout(false))
    const body = JSON.stringify({
      type: 'notification',
      event: 'payment.succeeded',
      object: { id: started.checkoutId },
    })
    const outcome = await provider.verifyNotification({
      rawBody: Buffer.from(body),
      headers: {},
      remoteAddress: '127.0.0.1',
      now: new Date(),
    })
    expect(outcome).toMatchObject({ kind: 'update', update: { state: 'open' } })
  })

  it('when an unpaid payment is captured, then YooKassa refuses: provider_error', async () => {
    const started = await provider.startCheckout(checkout(true))
    const hold = {
      checkoutId: started.checkoutId,
      paymentId: started.paymentId,
      invoiceId: 'live' as InvoiceId,
      amount: 10050 as Minor,
      currency: 'RUB',
      exponent: 2,
      service: 'live-test',
      idempotencyKey: randomUUID(),
    }
    await expect(provider.captureHold(hold)).rejects.toMatchObject({ code: 'provider_error' })
  })

  it('when the secret key is wrong, then provider_error naming neither the shop nor the key', async () => {
    const wrong = createYooKassaProvider({ ...settings, secretKey: `${secretKey}x` })
    const err = (await wrong.startCheckout(checkout(false)).catch((e: unknown) => e)) as Error
    expect(err).toMatchObject({ code: 'provider_error' })
    expect(err.message).not.toContain(shopId)
    expect(err.message).not.toContain(secretKey)
  })
})
