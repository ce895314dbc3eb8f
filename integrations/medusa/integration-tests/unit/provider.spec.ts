/**
 * The provider without a Medusa application: its options check and its reading of the service's webhooks (the
 * end-to-end file runs the same through a real application; these show each case on its own, in milliseconds).
 */
import { createHmac, randomBytes } from 'node:crypto'
import { InvoiceServiceProvider } from '../../src/service'

const SECRET = `whsec_${randomBytes(24).toString('base64')}`
const OPTIONS = {
  apiUrl: 'https://pay.example.com',
  apiKey: `mk_${'A'.repeat(43)}`,
  webhookSecret: SECRET,
  webhookUrl: 'https://shop.example.com/hooks/payment/invoice-service_default',
}

function signed(event: unknown, secret = SECRET, at = Math.floor(Date.now() / 1000)) {
  const body = JSON.stringify(event)
  const id = `msg_${randomBytes(8).toString('hex')}`
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const sig = createHmac('sha256', key).update(`${id}.${at}.${body}`).digest('base64')
  return {
    data: JSON.parse(body) as Record<string, unknown>,
    rawData: Buffer.from(body),
    headers: { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': `v1,${sig}` },
  }
}

const invoice = (status: string, orderId = 'payses_01JABCDEF0123456789ABCDEFG') => ({
  id: '0b0f3f1e-8a47-4c55-9d3b-0c7c2b8f4a11',
  merchant_id: '6d7c1b2a-1111-4c55-9d3b-0c7c2b8f4a11',
  order_id: orderId,
  amount: 25,
  currency: 'EUR',
  status,
})

describe('validateOptions', () => {
  it('accepts complete options', () => {
    expect(() => InvoiceServiceProvider.validateOptions(OPTIONS)).not.toThrow()
  })

  it.each([
    [{ apiKey: 'sk_live_123' }, /`apiKey` is not a merchant API key/],
    [{ apiKey: undefined }, /`apiKey` is missing/],
    [{ apiUrl: 'pay.example.com' }, /`apiUrl` is not a URL/],
    [{ apiUrl: 'ftp://pay.example.com' }, /`apiUrl` must be an http\(s\) URL/],
    [{ apiUrl: 'https://pay.example.com/api/v1' }, /without "\/api\/…"/],
    [{ webhookSecret: 'secret' }, /`webhookSecret` is not a webhook secret/],
    [{ webhookUrl: undefined }, /`webhookUrl` is missing/],
  ])('refuses %p, naming the option', (change, message) => {
    expect(() => InvoiceServiceProvider.validateOptions({ ...OPTIONS, ...change })).toThrow(message)
  })

  it('never echoes the key it refuses', () => {
    expect(() => InvoiceServiceProvider.validateOptions({ ...OPTIONS, apiKey: 'sk_live_secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('sk_live_secret') }),
    )
  })
})

describe('getWebhookActionAndData', () => {
  const provider = new InvoiceServiceProvider({}, OPTIONS)

  it.each([
    ['invoice.hold', 'hold', 'authorized'],
    ['invoice.paid', 'paid', 'captured'],
    ['invoice.failed', 'failed', 'failed'],
    ['invoice.expired', 'expired', 'canceled'],
  ])('maps %s to %s… Medusa %s', async (type, status, action) => {
    const result = await provider.getWebhookActionAndData(
      signed({ type, timestamp: new Date().toISOString(), data: invoice(status) }),
    )
    expect(result).toEqual({ action, data: { session_id: 'payses_01JABCDEF0123456789ABCDEFG', amount: 25 } })
  })

  it('refuses a wrong signature, a stale timestamp and a missing raw body', async () => {
    const event = { type: 'invoice.paid', timestamp: new Date().toISOString(), data: invoice('paid') }
    const other = `whsec_${randomBytes(24).toString('base64')}`
    expect(await provider.getWebhookActionAndData(signed(event, other))).toEqual({ action: 'not_supported' })
    const stale = Math.floor(Date.now() / 1000) - 3600
    expect(await provider.getWebhookActionAndData(signed(event, SECRET, stale))).toEqual({ action: 'not_supported' })
    const tampered = signed(event)
    tampered.rawData = Buffer.from(tampered.rawData.toString().replace('"amount":25', '"amount":1'))
    expect(await provider.getWebhookActionAndData(tampered)).toEqual({ action: 'not_supported' })
    const { rawData: _, ...noRaw } = signed(event)
    expect(await provider.getWebhookActionAndData(noRaw as never)).toEqual({ action: 'not_supported' })
  })

  it('ignores invoices it did not create and events that are not an invoice status', async () => {
    const foreign = { type: 'invoice.paid', timestamp: new Date().toISOString(), data: invoice('paid', 'A-1001') }
    expect(await provider.getWebhookActionAndData(signed(foreign))).toEqual({ action: 'not_supported' })
    const test = { type: 'webhook.test', timestamp: new Date().toISOString(), data: { merchant_id: 'x' } }
    expect(await provider.getWebhookActionAndData(signed(test))).toEqual({ action: 'not_supported' })
  })

  it('verifies with either secret during a rotation', async () => {
    const next = `whsec_${randomBytes(24).toString('base64')}`
    const rotating = new InvoiceServiceProvider({}, { ...OPTIONS, webhookSecret: [next, SECRET] })
    const event = { type: 'invoice.paid', timestamp: new Date().toISOString(), data: invoice('paid') }
    expect((await rotating.getWebhookActionAndData(signed(event))).action).toBe('captured')
  })
})
