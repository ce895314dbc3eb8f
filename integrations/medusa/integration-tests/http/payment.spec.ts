/**
 * End to end: a real Medusa application (Medusa's integration runner, PostgreSQL) with this provider, and the invoice
 * service as a real process whose webhooks go to the application's /hooks/payment/invoice-service_default.
 */
import {
  cancelOrderWorkflow,
  capturePaymentWorkflow,
  deletePaymentSessionsWorkflow,
  refundPaymentWorkflow,
} from '@medusajs/core-flows'
import { medusaIntegrationTestRunner } from '@medusajs/test-utils'
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils'
import type { MedusaContainer } from '@medusajs/framework/types'
import { createHmac } from 'node:crypto'
import { freePort, serviceApi, simulate, startInvoiceService, type InvoiceService } from '../helpers/invoice-service'
import { PROVIDER_ID, seedShop, type Shop } from '../helpers/shop'
import { InvoiceServiceProvider } from '../../src/service'

jest.setTimeout(180_000)

let service: InvoiceService
let medusaUrl: string

// Before the runner's own beforeAll (a parent's hooks run first): the service and its merchant must exist, and the
// Medusa port be known, when medusa-config.ts is read.
beforeAll(async () => {
  const port = await freePort()
  medusaUrl = `http://127.0.0.1:${port}`
  process.env.PORT = String(port)
  service = await startInvoiceService()
  process.env.INVOICE_SERVICE_URL = service.url
  process.env.INVOICE_SERVICE_API_KEY = service.merchant.api_key
  process.env.INVOICE_SERVICE_WEBHOOK_SECRET = service.merchant.webhook_secret
  process.env.INVOICE_SERVICE_WEBHOOK_URL = `${medusaUrl}/hooks/payment/invoice-service_default`
})

afterAll(async () => {
  await service?.stop()
})

interface Invoice {
  id: string
  order_id: string
  status: string
  amount: number
}

/**
 * Resolves when Medusa has finished processing the next webhook of the service: the subscriber of
 * payment.webhook_received runs the process-payment workflow for the actions it acts upon (Medusa delays every
 * webhook by 5 s). For a webhook it does not act upon, only the event's arrival can be awaited.
 */
function nextProcessedPayment(container: MedusaContainer): Promise<void> {
  const engine = container.resolve(Modules.WORKFLOW_ENGINE)
  // a run that began before (the previous webhook's, still finishing) is not the one awaited
  const begun = new Set<string>()
  return new Promise((resolve) => {
    const subscriber = (e: { eventType: string; transactionId: string }) => {
      if (e.eventType === 'onBegin') begun.add(e.transactionId)
      if (e.eventType !== 'onFinish' || !begun.has(e.transactionId)) return
      void engine.unsubscribe({ workflowId: 'process-payment-workflow', subscriberOrId: subscriber })
      resolve()
    }
    void engine.subscribe({ workflowId: 'process-payment-workflow', subscriber })
  })
}

function nextWebhookEvent(container: MedusaContainer): Promise<void> {
  const bus = container.resolve(Modules.EVENT_BUS)
  return new Promise((resolve) => {
    const subscriber = async () => {
      bus.unsubscribe('payment.webhook_received', subscriber)
      // Medusa's own subscriber got the same event at the same moment: let it decide first
      setTimeout(resolve, 1000)
    }
    bus.subscribe('payment.webhook_received', subscriber)
  })
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let shop: Shop
    let container: MedusaContainer
    const store = () => ({ headers: { 'x-publishable-api-key': shop.publishableKey } })

    beforeAll(async () => {
      container = getContainer()
      shop = await seedShop(container)
    })

    /** A cart with the product, and its payment session with this provider, as a storefront makes them. */
    async function checkout(): Promise<{ cartId: string; sessionId: string; data: Record<string, string> }> {
      const { data: c } = await api.post(
        '/store/carts',
        { region_id: shop.regionId, email: 'buyer@example.com', items: [{ variant_id: shop.variantId, quantity: 2 }] },
        store(),
      )
      const { data: pc } = await api.post('/store/payment-collections', { cart_id: c.cart.id }, store())
      const { data: ps } = await api.post(
        `/store/payment-collections/${pc.payment_collection.id}/payment-sessions`,
        { provider_id: PROVIDER_ID },
        store(),
      )
      const session = ps.payment_collection.payment_sessions[0]
      return { cartId: c.cart.id, sessionId: session.id, data: session.data }
    }

    async function orderOf(cartId: string): Promise<{ id: string } | undefined> {
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({ entity: 'cart', fields: ['id', 'order.id'], filters: { id: cartId } })
      return (data[0] as { order?: { id: string } } | undefined)?.order ?? undefined
    }

    async function paymentOf(sessionId: string) {
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({
        entity: 'payment',
        fields: ['id', 'amount', 'captured_at', 'canceled_at', 'data', 'captures.id', 'captures.amount', 'refunds.id'],
        filters: { payment_session_id: sessionId },
      })
      return data[0] as
        { id: string; captured_at: Date | null; data: Record<string, unknown>; captures: { id: string }[] } | undefined
    }

    it('a payment session creates the invoice; paying on the service completes the order, captured', async () => {
      const { cartId, sessionId, data } = await checkout()
      expect(data.pay_url).toBe(`${service.url}/pay/${data.invoice_id}`)
      expect(data.qr_image).toMatch(/^data:image\/png;base64,/)
      const invoice = await serviceApi<Invoice>(service, 'GET', `/api/v1/invoices/${data.invoice_id}`)
      expect(invoice).toMatchObject({ order_id: sessionId, status: 'pending', amount: 25 })
      expect((await fetch(data.pay_url!)).status).toBe(200)

      // the buyer pays and never comes back to the shop: the webhook alone completes the order
      await simulate(service, data.invoice_id!, 'paid')
      const order = await until('the order', () => orderOf(cartId))
      const payment = await until('the captured payment', async () => {
        const p = await paymentOf(sessionId)
        return p?.captured_at ? p : undefined
      })
      expect(payment.captures).toHaveLength(1)
      expect(order.id).toMatch(/^order_/)
    })

    it('a duplicated webhook changes nothing', async () => {
      const { cartId, sessionId, data } = await checkout()
      await simulate(service, data.invoice_id!, 'paid')
      const order = await until('the order', () => orderOf(cartId))
      await until('the captured payment', async () => ((await paymentOf(sessionId))?.captured_at ? true : undefined))
      const before = await paymentOf(sessionId)

      const { data: deliveries } = await serviceApi<{ data: { id: string; type: string }[] }>(
        service,
        'GET',
        `/api/v1/webhooks/deliveries?invoice_id=${data.invoice_id}`,
      )
      const paid = deliveries.find((d) => d.type === 'invoice.paid')!
      // the same event again (same webhook-id, signed anew), as the service's redelivery sends it
      const processed = nextProcessedPayment(container)
      await serviceApi(service, 'POST', `/api/v1/webhooks/deliveries/${paid.id}/retry`)
      await until('the redelivery', async () => {
        const { data: after } = await serviceApi<{ data: { id: string; attempts: unknown[]; status: string }[] }>(
          service,
          'GET',
          `/api/v1/webhooks/deliveries?invoice_id=${data.invoice_id}`,
        )
        const d = after.find((x) => x.id === paid.id)!
        return d.attempts.length >= 2 && d.status === 'succeeded' ? true : undefined
      })
      await processed
      expect(await orderOf(cartId)).toEqual(order)
      expect(await paymentOf(sessionId)).toEqual(before)
      const invoice = await serviceApi<Invoice>(service, 'GET', `/api/v1/invoices/${data.invoice_id}`)
      expect(invoice.status).toBe('paid')
    })

    it('a hold authorizes the payment and completes the order; capture from Medusa makes the invoice paid', async () => {
      const { cartId, sessionId, data } = await checkout()
      await simulate(service, data.invoice_id!, 'hold')
      await until('the order', () => orderOf(cartId))
      const payment = await until('the authorized payment', () => paymentOf(sessionId))
      expect(payment.captured_at).toBeNull()
      expect((await serviceApi<Invoice>(service, 'GET', `/api/v1/invoices/${data.invoice_id}`)).status).toBe('hold')

      const paidProcessed = nextProcessedPayment(container)
      await capturePaymentWorkflow(container).run({ input: { payment_id: payment.id } })
      expect((await serviceApi<Invoice>(service, 'GET', `/api/v1/invoices/${data.invoice_id}`)).status).toBe('paid')
      const captured = await paymentOf(sessionId)
      expect(captured?.captured_at).not.toBeNull()
      expect(captured?.captures).toHaveLength(1)
      // the service's invoice.paid that follows the capture is harmless
      await paidProcessed
      expect((await paymentOf(sessionId))?.captures).toHaveLength(1)
    })

    it('a refund from Medusa is a refund of the invoice, succeeded on the service', async () => {
      const { cartId, sessionId, data } = await checkout()
      await simulate(service, data.invoice_id!, 'paid')
      await until('the order', () => orderOf(cartId))
      const payment = await until('the captured payment', async () => {
        const p = await paymentOf(sessionId)
        return p?.captured_at ? p : undefined
      })
      await refundPaymentWorkflow(container).run({ input: { payment_id: payment.id, amount: 10 } })
      const { data: refunds } = await serviceApi<{ data: { amount: string; status: string }[] }>(
        service,
        'GET',
        `/api/v1/invoices/${data.invoice_id}/refunds`,
      )
      expect(refunds).toEqual([expect.objectContaining({ amount: '10.00', status: 'succeeded' })])
      const invoice = await serviceApi<Invoice & { refunded_amount: string }>(
        service,
        'GET',
        `/api/v1/invoices/${data.invoice_id}`,
      )
      expect(invoice).toMatchObject({ status: 'paid', refunded_amount: '10.00' })
      expect((await paymentOf(sessionId))?.data).toMatchObject({ refunds: [{ amount: '10.00', status: 'succeeded' }] })
    })

    it('a hold cancelled from Medusa (the order cancelled) makes the invoice failed', async () => {
      const { cartId, sessionId, data } = await checkout()
      await simulate(service, data.invoice_id!, 'hold')
      const order = await until('the order', () => orderOf(cartId))
      await until('the authorized payment', () => paymentOf(sessionId))
      await cancelOrderWorkflow(container).run({ input: { order_id: order.id } })
      expect((await serviceApi<Invoice>(service, 'GET', `/api/v1/invoices/${data.invoice_id}`)).status).toBe('failed')
      expect((await paymentOf(sessionId))?.captured_at).toBeNull()
    })

    it('a payment session deleted in Medusa cancels its invoice, which can no longer be paid', async () => {
      const { sessionId, data } = await checkout()
      await deletePaymentSessionsWorkflow(container).run({ input: { ids: [sessionId] } })
      expect((await serviceApi<Invoice>(service, 'GET', `/api/v1/invoices/${data.invoice_id}`)).status).toBe('failed')
      await expect(simulate(service, data.invoice_id!, 'paid')).rejects.toThrow(/HTTP 409/)
    })

    it('a key or URL the service does not take fails with an error that says which option to check', async () => {
      const options = {
        apiUrl: service.url,
        apiKey: `mk_${'A'.repeat(43)}`,
        webhookSecret: service.merchant.webhook_secret,
        webhookUrl: `${medusaUrl}/hooks/payment/invoice-service_default`,
      }
      const input = { amount: 10, currency_code: 'eur', data: { session_id: 'payses_01JKEYCHECK0000000000000000' } }
      await expect(new InvoiceServiceProvider({}, options).initiatePayment(input)).rejects.toThrow(
        /refused the API key \(invalid_api_key\): check the apiKey option/,
      )
      const closed = `http://127.0.0.1:${await freePort()}`
      await expect(
        new InvoiceServiceProvider(
          {},
          { ...options, apiUrl: closed, apiKey: service.merchant.api_key },
        ).initiatePayment(input),
      ).rejects.toThrow(/did not answer .*check the apiUrl option/)
    })

    it('a forged webhook is refused: no order, the session stays pending', async () => {
      const { cartId, sessionId, data } = await checkout()
      const invoice = await serviceApi<Invoice>(service, 'GET', `/api/v1/invoices/${data.invoice_id}`)
      const body = JSON.stringify({
        type: 'invoice.paid',
        timestamp: new Date().toISOString(),
        data: { ...invoice, status: 'paid' },
      })
      const id = 'msg_forged'
      const ts = Math.floor(Date.now() / 1000).toString()
      const wrongKey = Buffer.from('not the merchant secret, 32 bytes!')
      const signature = createHmac('sha256', wrongKey).update(`${id}.${ts}.${body}`).digest('base64')
      const headers = { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${signature}` }

      // what the provider says of it: nothing to do
      const paymentModule = container.resolve(Modules.PAYMENT)
      const verdict = await paymentModule.getWebhookActionAndData({
        provider: 'invoice-service_default',
        payload: { data: JSON.parse(body), rawData: Buffer.from(body), headers },
      })
      expect(verdict).toEqual({ action: 'not_supported' })

      // and sent to the application's webhook route: Medusa acknowledges every webhook, but nothing happens
      const arrived = nextWebhookEvent(container)
      const res = await fetch(`${medusaUrl}/hooks/payment/invoice-service_default`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      })
      expect(res.status).toBe(200)
      await arrived
      expect(await orderOf(cartId)).toBeUndefined()
      expect(await paymentOf(sessionId)).toBeUndefined()
    })
  },
})
