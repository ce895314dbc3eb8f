/**
 * The acquirers' credentials never in the logs (docs/providers.md#configuration; issue 21: "the acquirer's
 * credentials never appear in logs, errors or CLI output"): the real server process at LOG_LEVEL=trace, bound to a
 * fake Stripe and a fake YooKassa, through a start, a checkout, a notification accepted, one refused, the acquirer
 * down (503) and a capture it refuses (502). Everything the server wrote is searched for STRIPE_SECRET_KEY,
 * STRIPE_WEBHOOK_SECRET and YOOKASSA_SECRET_KEY, whole and in the forms they travel in (the webhook secret's
 * base64 part, YooKassa's Basic credentials). And a start refused for a bad or missing credential (exit 78) names
 * the variables without quoting what it was given.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { FakeAcquirer } from '../fakes/acquirer.js'
import { startFakeStripe, stripeSignature } from '../fakes/stripe/fake-stripe.js'
import { startFakeYooKassa } from '../fakes/yookassa/fake-yookassa.js'
import { BIN, createMerchantWithCli, startServer, stopServer } from '../helpers/server-process.js'

const dir = mkdtempSync(join(tmpdir(), 'invoice-provider-log-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs `invoice-service serve` with `env` until it exits; its exit code and everything it wrote. */
function startThatFails(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { PATH: process.env['PATH'] ?? '', ...env } })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

describe('acquirer credentials at LOG_LEVEL=trace', () => {
  it('when checkouts, notifications accepted and refused, an acquirer down and a refused capture go through Stripe and YooKassa, then no log line carries a credential', async () => {
    const stripe = await startFakeStripe()
    const yookassa = await startFakeYooKassa()
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'providers.db')}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'trace',
      KEY_CACHE_TTL: '0',
      PROVIDER_TIMEOUT: '2',
      CURRENCIES: 'RUB,USD',
      SERVICES: 'card,held,yoo,yooheld',
      HOLD_SERVICES: 'held,yooheld',
      SERVICE_PROVIDERS: 'card=stripe,held=stripe,yoo=yookassa,yooheld=yookassa',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_API_URL: stripe.apiUrl,
      YOOKASSA_SHOP_ID: yookassa.shopId,
      YOOKASSA_SECRET_KEY: yookassa.secretKey,
      YOOKASSA_API_URL: yookassa.apiUrl,
      // the fake sends from 127.0.0.1, the proxy the service trusts: a forwarded address is the sender
      TRUST_PROXY: '127.0.0.1',
      YOOKASSA_NOTIFICATION_SOURCES: '127.0.0.1/32',
    }
    const m = await createMerchantWithCli(env)
    const server = await startServer(env)
    try {
      stripe.setNotificationUrl(`${server.base}/providers/stripe/notifications`)
      yookassa.setNotificationUrl(`${server.base}/providers/yookassa/notifications`)
      let orders = 0
      const create = async (service: string, currency: string): Promise<string> => {
        const res = await fetch(`${server.base}/api/v1/invoices`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': m.api_key },
          body: JSON.stringify({ order_id: `S-${(orders += 1)}`, amount: '10.50', currency, service }),
        })
        const body = (await res.json()) as { order_id: string }
        expect(res.status, JSON.stringify(body)).toBe(201)
        return body.order_id
      }
      const press = (id: string) => fetch(`${server.base}/pay/${id}/checkout`, { method: 'POST', redirect: 'manual' })
      const status = async (id: string) =>
        (
          (await (
            await fetch(`${server.base}/api/v1/invoices/${id}`, { headers: { 'x-api-key': m.api_key } })
          ).json()) as { status: string }
        ).status
      const capture = (id: string) =>
        fetch(`${server.base}/api/v1/invoices/${id}/capture`, { method: 'POST', headers: { 'x-api-key': m.api_key } })
      const code = async (res: Response) => ((await res.json()) as { code: string }).code

      const acquirers: {
        name: string
        fake: FakeAcquirer
        currency: string
        card: string
        held: string
        checkoutOf: (location: string) => string
        forged: (paymentId: string) => { headers: Record<string, string>; body: string }
      }[] = [
        {
          name: 'stripe',
          fake: stripe,
          currency: 'USD',
          card: 'card',
          held: 'held',
          checkoutOf: (location) => /\/c\/pay\/([^/?#]+)/.exec(location)?.[1] ?? '',
          forged: (paymentId) => {
            const body = JSON.stringify({
              id: 'evt_forged',
              object: 'event',
              type: 'payment_intent.succeeded',
              data: { object: { id: paymentId, object: 'payment_intent', status: 'succeeded' } },
            })
            return {
              headers: {
                'content-type': 'application/json',
                'stripe-signature': stripeSignature('whsec_not_the_endpoints', body),
              },
              body,
            }
          },
        },
        {
          name: 'yookassa',
          fake: yookassa,
          currency: 'RUB',
          card: 'yoo',
          held: 'yooheld',
          checkoutOf: (location) => new URL(location).searchParams.get('orderId') ?? '',
          forged: (paymentId) => ({
            headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
            body: JSON.stringify({
              type: 'notification',
              event: 'payment.succeeded',
              object: { id: paymentId, status: 'succeeded', paid: true },
            }),
          }),
        },
      ]

      for (const a of acquirers) {
        // a checkout, and its notification accepted
        const paid = await create(a.card, a.currency)
        const pressed = await press(paid)
        expect(pressed.status, a.name).toBe(303)
        await a.fake.buyer(a.checkoutOf(pressed.headers.get('location') ?? ''), 'pay')
        expect(await status(paid), a.name).toBe('paid')

        // a notification refused (a bad signature; a sender outside YooKassa's ranges)
        const other = await create(a.card, a.currency)
        expect((await press(other)).status, a.name).toBe(303)
        const paymentId = a.fake.payments().find((p) => p.metadata['invoice_id'] === paid)?.id ?? 'unknown'
        const forged = a.forged(paymentId)
        const refused = await fetch(`${server.base}/providers/${a.name}/notifications`, {
          method: 'POST',
          headers: forged.headers,
          body: forged.body,
        })
        expect(refused.status, a.name).toBe(401)

        // the acquirer down: Pay answers 503
        const down = await create(a.card, a.currency)
        a.fake.setDown('error')
        const unavailable = await press(down)
        a.fake.setDown(false)
        expect(unavailable.status, a.name).toBe(503)
        expect(await code(unavailable), a.name).toBe('provider_unavailable')

        // a capture the acquirer refuses: the hold lapsed there, and its notification was lost
        const held = await create(a.held, a.currency)
        const heldPress = await press(held)
        await a.fake.buyer(a.checkoutOf(heldPress.headers.get('location') ?? ''), 'pay')
        expect(await status(held), a.name).toBe('hold')
        a.fake.dropNotifications(10)
        await a.fake.lapseHold(a.fake.payments().find((p) => p.metadata['invoice_id'] === held)?.id ?? '')
        a.fake.dropNotifications(0)
        const refusedCapture = await capture(held)
        expect(refusedCapture.status, a.name).toBe(502)
        expect(await code(refusedCapture), a.name).toBe('provider_error')
      }
    } finally {
      await stopServer(server) // SIGTERM: the asynchronous log is flushed before the exit
      await stripe.close()
      await yookassa.close()
    }

    const lines = server.output.split('\n').filter((l) => l.startsWith('{'))
    // the log was written, and through every step above (the notifications at info, the 5xx answers at error)
    expect(lines.some((l) => l.includes('"msg":"provider notification refused"'))).toBe(true)
    expect(lines.some((l) => l.includes('"code":"provider_unavailable"'))).toBe(true)
    expect(lines.some((l) => l.includes('"code":"provider_error"'))).toBe(true)
    // an acquirer's refusal or outage is expected: a warning (40) with its message, not an error with a stack
    for (const line of lines.filter((l) => /"code":"provider_(error|unavailable)"/.test(l))) {
      expect(line).toContain('"level":40')
      expect(line).not.toContain('"stack"')
    }
    expect(lines.some((l) => l.includes('/providers/stripe/notifications'))).toBe(true)
    expect(lines.some((l) => l.includes('/providers/yookassa/notifications'))).toBe(true)
    const forbidden: Record<string, string> = {
      STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY,
      'STRIPE_SECRET_KEY without its prefix': env.STRIPE_SECRET_KEY.slice('sk_test_'.length),
      STRIPE_WEBHOOK_SECRET: env.STRIPE_WEBHOOK_SECRET,
      'STRIPE_WEBHOOK_SECRET without its prefix': env.STRIPE_WEBHOOK_SECRET.slice('whsec_'.length),
      YOOKASSA_SECRET_KEY: env.YOOKASSA_SECRET_KEY,
      'YOOKASSA_SECRET_KEY without its prefix': env.YOOKASSA_SECRET_KEY.slice('test_'.length),
      "YooKassa's Basic credentials": Buffer.from(`${env.YOOKASSA_SHOP_ID}:${env.YOOKASSA_SECRET_KEY}`).toString(
        'base64',
      ),
    }
    for (const [what, value] of Object.entries(forbidden)) expect(server.output.includes(value), what).toBe(false)
  })

  it('when a start is refused for a bad or missing acquirer credential, then it exits 78 naming the variables and quoting no value', async () => {
    const base = {
      DATABASE_URL: `sqlite:${join(dir, 'refused.db')}`,
      PORT: '0',
      SERVICES: 'card,yoo',
      CURRENCIES: 'RUB,USD',
    }
    const badStripeKey = 'pk_test_PublishableNotSecret4242'
    const badWebhookSecret = 'whsec-Mistyped/Signing+Secret'
    const yookassaKey = 'live_YooKassaKeyWithAShopIdThatIsNot'
    const cases = [
      {
        env: { SERVICE_PROVIDERS: 'card=stripe', STRIPE_SECRET_KEY: badStripeKey },
        named: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
        secrets: [badStripeKey],
      },
      {
        env: {
          SERVICE_PROVIDERS: 'card=stripe',
          STRIPE_SECRET_KEY: badStripeKey,
          STRIPE_WEBHOOK_SECRET: badWebhookSecret,
        },
        named: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
        secrets: [badStripeKey, badWebhookSecret],
      },
      {
        env: { SERVICE_PROVIDERS: 'yoo=yookassa', YOOKASSA_SHOP_ID: 'shop-one', YOOKASSA_SECRET_KEY: yookassaKey },
        named: ['YOOKASSA_SHOP_ID'],
        secrets: [yookassaKey],
      },
      {
        env: { SERVICE_PROVIDERS: 'yoo=yookassa', YOOKASSA_SHOP_ID: '100500' },
        named: ['YOOKASSA_SECRET_KEY'],
        secrets: [],
      },
    ]
    for (const c of cases) {
      const { code, output } = await startThatFails({ ...base, ...c.env })
      expect(code, output).toBe(78)
      for (const name of c.named) expect(output, name).toContain(name)
      for (const secret of c.secrets) expect(output.includes(secret), `${secret} quoted`).toBe(false)
    }
  })
})
