/**
 * The demo shop (examples/demo-shop/shop.js, run as `node shop.js` is) against the real service: a forged webhook
 * is refused, and when no webhook can get through the order page still settles by polling the service.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createInvoiceClient } from '@invoice-service/client'
import { freePort, simulate, startLiveService, type LiveService } from '../helpers/live-service.js'

const SHOP = join(import.meta.dirname, '..', '..', 'examples', 'demo-shop', 'shop.js')

interface Shop {
  readonly url: string
  readonly output: () => string
  stop(): Promise<void>
}

async function startShop(service: LiveService, env: Record<string, string>): Promise<Shop> {
  const port = await freePort()
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [SHOP], {
    env: {
      PATH: process.env['PATH'] ?? '',
      INVOICE_SERVICE_URL: service.url,
      INVOICE_API_KEY: service.merchant.apiKey,
      INVOICE_MERCHANT_ID: service.merchant.id,
      INVOICE_WEBHOOK_SECRET: service.merchant.webhookSecret,
      SHOP_PORT: String(port),
      ...env,
    },
  })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const deadline = Date.now() + 20_000
  while (!output.includes('Demo shop:') && child.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50))
  expect(output).toContain(`Demo shop: http://127.0.0.1:${port}`)
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      const exited = new Promise((resolve) => child.on('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** "Buy now" with the given order id: the shop creates the invoice and redirects to its pay_url. */
async function placeOrder(shop: Shop, orderId: string): Promise<string> {
  const res = await fetch(`${shop.url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ order_id: orderId }),
    redirect: 'manual',
  })
  expect(res.status).toBe(303)
  return res.headers.get('location') ?? ''
}

const orderStatus = async (shop: Shop, orderId: string): Promise<string> =>
  ((await (await fetch(`${shop.url}/orders/${orderId}/status`)).json()) as { status: string }).status

describe('the demo shop against the real service', () => {
  let service: LiveService
  const shops: Shop[] = []
  beforeAll(async () => {
    service = await startLiveService()
  })
  afterAll(async () => {
    for (const shop of shops) await shop.stop()
    await service?.close()
  })

  it('when a webhook is forged, then the shop refuses it (401) and only the signed one marks the order paid', async () => {
    const shop = await startShop(service, { SHOP_POLL_FALLBACK_SECONDS: '0' })
    shops.push(shop)
    const orderId = 'DEMO-FORGED1'
    const payUrl = await placeOrder(shop, orderId)
    expect(payUrl).toMatch(new RegExp(`^${service.url}/pay/[0-9a-f-]{36}$`))
    // the same form sent again is the same order and the same invoice
    expect(await placeOrder(shop, orderId)).toBe(payUrl)
    const invoiceId = payUrl.split('/').pop() ?? ''
    const invoice = await createInvoiceClient({ baseUrl: service.url, apiKey: service.merchant.apiKey }).getInvoice(
      invoiceId,
    )

    const forgedBody = JSON.stringify({
      type: 'invoice.paid',
      timestamp: new Date().toISOString(),
      data: { ...invoice, status: 'paid' },
    })
    const forged = await fetch(`${shop.url}/webhooks/invoices`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'forged-1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': `v1,${randomBytes(32).toString('base64')}`,
      },
      body: forgedBody,
    })
    expect(forged.status).toBe(401)
    expect(await orderStatus(shop, orderId)).toBe('awaiting_payment')

    await simulate(service, invoiceId, 'paid')
    await expect.poll(() => orderStatus(shop, orderId)).toBe('paid')
    const page = await (await fetch(`${shop.url}/orders/${orderId}`)).text()
    expect(page).toContain('data-confirmed-by="webhook"')
  })

  it('when a paid order is refunded from its page, then the service refunds it once and the refund.succeeded webhook reaches the shop', async () => {
    const shop = await startShop(service, { SHOP_POLL_FALLBACK_SECONDS: '0' })
    shops.push(shop)
    const orderId = 'DEMO-REFUND1'
    const invoiceId = (await placeOrder(shop, orderId)).split('/').pop() ?? ''
    const refundNow = () =>
      fetch(`${shop.url}/orders/${orderId}/refund`, { method: 'POST', redirect: 'manual' }).then((r) => r.status)
    expect(await refundNow()).toBe(409) // not paid yet
    await simulate(service, invoiceId, 'paid')
    await expect.poll(() => orderStatus(shop, orderId)).toBe('paid')
    expect(await (await fetch(`${shop.url}/orders/${orderId}`)).text()).toContain('Refund this order')
    // pressed twice: one refund (the order's own Idempotency-Key)
    expect(await refundNow()).toBe(303)
    expect(await refundNow()).toBe(303)
    const client = createInvoiceClient({ baseUrl: service.url, apiKey: service.merchant.apiKey })
    const refunds = await client.listRefunds(invoiceId)
    expect(refunds).toHaveLength(1)
    expect(refunds[0]).toMatchObject({ amount: '1490.00', status: 'succeeded' })
    expect((await client.getInvoice(invoiceId)).refunded_amount).toBe('1490.00')
    await expect.poll(() => shop.output()).toContain('refund succeeded (by webhook)')
    const status = (await (await fetch(`${shop.url}/orders/${orderId}/status`)).json()) as { refund: string }
    expect(status.refund).toBe('succeeded')
    expect(await (await fetch(`${shop.url}/orders/${orderId}`)).text()).toContain('data-refund="succeeded"')
  })

  it('when no webhook verifies (a wrong secret), then the order page settles it by asking the service (getInvoice)', async () => {
    const wrong = `whsec_${randomBytes(32).toString('base64')}`
    const shop = await startShop(service, { INVOICE_WEBHOOK_SECRET: wrong, SHOP_POLL_FALLBACK_SECONDS: '1' })
    shops.push(shop)
    const orderId = 'DEMO-FALLBACK1'
    const invoiceId = (await placeOrder(shop, orderId)).split('/').pop() ?? ''
    await simulate(service, invoiceId, 'paid')

    // the service's webhook was refused by the shop …
    const client = createInvoiceClient({ baseUrl: service.url, apiKey: service.merchant.apiKey })
    await expect
      .poll(async () => (await client.listDeliveries({ invoice_id: invoiceId })).data[0]?.attempts[0]?.status_code)
      .toBe(401)
    expect(shop.output()).toContain('webhook refused')
    // … and the order page's status feed still finds it paid
    await expect.poll(() => orderStatus(shop, orderId), { timeout: 10_000, interval: 300 }).toBe('paid')
    const page = await (await fetch(`${shop.url}/orders/${orderId}`)).text()
    expect(page).toContain('data-confirmed-by="polling"')
  })
})
