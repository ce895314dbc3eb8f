/**
 * The merchant's and the operator's side of acquirers over the API (docs/providers.md): a currency or an amount the
 * service's acquirer cannot take is refused at create, locally, naming the field; notifications and reconciliation
 * show on /metrics; a notification for a provider not configured here has no route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { startFakeStripe, stripeSignature, type FakeStripe } from '../fakes/stripe/fake-stripe.js'
import { startFakeYooKassa, type FakeYooKassa } from '../fakes/yookassa/fake-yookassa.js'

describe('acquirers over the API', () => {
  let stripe: FakeStripe
  let yookassa: FakeYooKassa
  let t: TestApp
  let merchant: TestMerchant

  beforeAll(async () => {
    stripe = await startFakeStripe()
    yookassa = await startFakeYooKassa()
    t = await buildTestApp(
      {
        CURRENCIES: 'RUB,USD,KWD',
        SERVICES: 'card,sbp,test',
        SERVICE_PROVIDERS: 'card=stripe,sbp=yookassa',
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_API_URL: stripe.apiUrl,
        YOOKASSA_SHOP_ID: yookassa.shopId,
        YOOKASSA_SECRET_KEY: yookassa.secretKey,
        YOOKASSA_API_URL: yookassa.apiUrl,
      },
      { realClock: true },
    ) // the fake acquirers check times against the real clock
    merchant = await t.merchant('Acquirer Shop')
  })
  afterAll(async () => {
    await t?.close()
    await stripe?.close()
    await yookassa?.close()
  })

  it('when an invoice is in a currency the service`s acquirer does not take, then it is 400 naming currency, and no acquirer is called', async () => {
    const shop = api(t).as(merchant)
    const res = await shop.createInvoice({ order_id: 'C-1', amount: '10.00', currency: 'USD', service: 'sbp' })
    expect(expectProblem(res, 400, 'validation_failed').errors?.map((e) => e.field)).toEqual(['currency'])
    expect(yookassa.createdCount).toBe(0)
    // the same currency on a service of another provider is fine
    expectStatus(await shop.createInvoice({ order_id: 'C-1', amount: '10.00', currency: 'USD', service: 'card' }), 201)
    expectStatus(await shop.createInvoice({ order_id: 'C-2', amount: '10.00', currency: 'USD', service: 'test' }), 201)
  })

  it('when an amount is one Stripe cannot charge in its currency (a third decimal of KWD other than 0), then it is 400 naming amount', async () => {
    const shop = api(t).as(merchant)
    const res = await shop.createInvoice({ order_id: 'K-1', amount: '5.125', currency: 'KWD', service: 'card' })
    expect(expectProblem(res, 400, 'validation_failed').errors?.map((e) => e.field)).toEqual(['amount'])
    expectStatus(await shop.createInvoice({ order_id: 'K-2', amount: '5.120', currency: 'KWD', service: 'card' }), 201)
    expect(stripe.createdCount).toBe(0) // create stays local: no Checkout Session until the buyer presses Pay
  })

  it('when notifications are refused and accepted, then /metrics counts them per provider and result, with the reconciliation gauges', async () => {
    const refused = await api(t).raw({
      method: 'POST',
      url: '/providers/stripe/notifications',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{"id":"evt_1","object":"event","type":"payment_intent.succeeded"}',
    })
    expectProblem(refused, 401, 'unauthenticated')
    const outside = await api(t).raw({
      method: 'POST',
      url: '/providers/yookassa/notifications',
      headers: { 'content-type': 'application/json' },
      payload: '{"type":"notification","event":"payment.succeeded","object":{"id":"x"}}',
      remoteAddress: '203.0.113.9',
    })
    expectProblem(outside, 401, 'unauthenticated')
    const text = (await api(t).metrics()).text
    expect(text).toMatch(/provider_notifications_total\{provider="stripe",result="refused"\} 1/)
    expect(text).toMatch(/provider_notifications_total\{provider="yookassa",result="refused"\} 1/)
    expect(text).toMatch(/^reconcile_lag_seconds 0$/m)
    expect(text).toMatch(/^reconcile_due 0$/m)
  })

  it('when a verified notification is about a payment that is not ours, then it is acknowledged (200), changes nothing and counts as unknown', async () => {
    const body = JSON.stringify({
      id: 'evt_elsewhere',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: 1_795_000_000,
      livemode: false,
      data: {
        object: {
          id: 'pi_someone_elses',
          object: 'payment_intent',
          status: 'succeeded',
          amount: 1000,
          amount_received: 1000,
          currency: 'usd',
          metadata: {},
        },
      },
    })
    const signature = stripeSignature(stripe.webhookSecret, body)
    const res = await api(t).raw({
      method: 'POST',
      url: '/providers/stripe/notifications',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload: body,
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ received: true })
    expect((await api(t).metrics()).text).toMatch(
      /provider_notifications_total\{provider="stripe",result="unknown"\} 1/,
    )
  })

  it('when a notification is larger than the API`s 16 KiB body limit (a Stripe event carries whole objects), then it is still read', async () => {
    const body = JSON.stringify({
      id: 'evt_large',
      object: 'event',
      type: 'customer.updated',
      created: 1_795_000_000,
      livemode: false,
      data: { object: { id: 'cus_1', object: 'customer', description: 'x'.repeat(40_000) } },
    })
    const signature = stripeSignature(stripe.webhookSecret, body)
    const res = await api(t).raw({
      method: 'POST',
      url: '/providers/stripe/notifications',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload: body,
    })
    expect(res.status, res.text).toBe(200)
  })

  it('when the buyer chose the page`s language, then the acquirer sends them back to the page in it', async () => {
    const shop = api(t).as(merchant)
    const created = await shop.createInvoice({ order_id: 'L-1', amount: '10.00', currency: 'USD', service: 'card' })
    expectStatus(created, 201)
    const id = created.body.order_id
    const res = await api(t).raw({ method: 'POST', url: `/pay/${id}/checkout?lang=ru` })
    expect(res.status, res.text).toBe(303)
    const session = stripe.sessions().find((s) => (s['metadata'] as Record<string, string>)['invoice_id'] === id)
    expect(session?.['success_url']).toBe(`http://pay.test/pay/${id}?lang=ru`)
  })

  it('when a person`s Pay fails at the acquirer, then they land back on the page, which says so, and may press Pay again', async () => {
    const shop = api(t).as(merchant)
    const created = await shop.createInvoice({ order_id: 'F-1', amount: '10.00', currency: 'USD', service: 'card' })
    expectStatus(created, 201)
    const id = created.body.order_id
    const press = (query = '') =>
      api(t).raw({
        method: 'POST',
        url: `/pay/${id}/checkout${query}`,
        // as Chromium posts the Pay form: no field, so an empty body
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml' },
        payload: '',
      })
    stripe.setDown('error')
    try {
      const down = await press('?lang=ru')
      expect(down.status, down.text).toBe(303)
      expect(down.headers['location']).toBe(`/pay/${id}?lang=ru&checkout=unavailable`)
      const page = await api(t).raw({ method: 'GET', url: `/pay/${id}?lang=ru&checkout=unavailable` })
      expect(page.text).toContain('role="alert"')
      expect(page.text).toContain('Платёжный сервис сейчас не отвечает')
      expect(page.text).toContain('data-checkout') // Pay is still there
      // a JSON caller still gets the problem
      const json = await api(t).raw({ method: 'POST', url: `/pay/${id}/checkout` })
      expectProblem(json, 503, 'provider_unavailable')
    } finally {
      stripe.setDown(false)
    }
    // the message is only ever one of the service's own: another value shows nothing
    const other = await api(t).raw({ method: 'GET', url: `/pay/${id}?checkout=%3Cscript%3E` })
    expect(other.text).not.toContain('role="alert"')
    expect((await press()).status).toBe(303)
  })

  it('when a notification names a provider not configured here (or the sandbox), then it is 404', async () => {
    for (const provider of ['sandbox', 'paypal', 'evm']) {
      const res = await api(t).raw({
        method: 'POST',
        url: `/providers/${provider}/notifications`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      })
      expectProblem(res, 404, 'not_found')
    }
  })

  it('when a malformed notification comes from YooKassa`s address, then it is 400 validation_failed naming body', async () => {
    const res = await api(t).raw({
      method: 'POST',
      url: '/providers/yookassa/notifications',
      headers: { 'content-type': 'application/json' },
      payload: 'not json',
      remoteAddress: '185.71.76.1',
    })
    expect(expectProblem(res, 400, 'validation_failed').errors?.map((e) => e.field)).toEqual(['body'])
  })
})
