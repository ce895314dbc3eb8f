/**
 * One driver per payment provider for the conformance suite (./conformance.ts): how the suite starts the acquirer,
 * configures the service for it, plays the buyer, and forges a notification. The suite itself is the same black-box
 * cases for every provider (docs/providers.md#status-mapping).
 */
import type { FakeAcquirer } from '../fakes/acquirer.js'
import { startFakeStripe, stripeSignature } from '../fakes/stripe/fake-stripe.js'
import { startFakeYooKassa } from '../fakes/yookassa/fake-yookassa.js'

/** The service as the suite sees it: its URL and the attempts of an invoice (the acquirer's ids). */
export interface ServiceHandle {
  readonly url: string
  checkoutIds(invoiceId: string): Promise<string[]>
}

export interface ProviderDriver {
  readonly name: 'sandbox' | 'stripe' | 'yookassa'
  readonly currency: string
  /** The service's environment for this provider: services `card` (captured) and `held` (authorised only). */
  readonly env: Readonly<Record<string, string>>
  /** The acquirer lets us end an open checkout early (Stripe: a session can be expired; YooKassa: it cannot). */
  readonly endsCheckout: boolean
  /** The acquirer's fake server; undefined for the sandbox (its buyer is the page's test controls). */
  readonly acquirer: FakeAcquirer | undefined
  /**
   * The buyer pays (or is declined) on the hosted page: the sandbox's test controls; for an acquirer, Pay on our
   * page (`POST /pay/{id}/checkout`), then the action at the acquirer's checkout.
   */
  pay(service: ServiceHandle, invoiceId: string, action: 'pay' | 'decline', hold: boolean): Promise<void>
  /** A notification claiming the invoice's payment succeeded that must fail verification; undefined: no notifications. */
  forge?(invoiceId: string, paymentId: string): { headers: Record<string, string>; body: string }
  /** The provider refuses the invoice's next refund (the sandbox: its test control; an acquirer: its fake's). */
  refuseNextRefund(serviceUrl: string, apiKey: string, invoiceId: string): Promise<void>
  /** A notification claiming the refund failed that must fail verification; undefined: no notifications. */
  forgeRefund?(refundId: string): { headers: Record<string, string>; body: string }
  /**
   * The acquirer fails a refund (its id) after it succeeded, and says so (Stripe: a refund to a closed card account);
   * undefined: the acquirer's refunds do not fail once they succeeded.
   */
  failRefundLater?(refundId: string): Promise<void>
  close(): Promise<void>
}

const SERVICES = { SERVICES: 'card,held', HOLD_SERVICES: 'held' }

async function pressPay(service: ServiceHandle, invoiceId: string): Promise<string> {
  const res = await fetch(`${service.url}/pay/${invoiceId}/checkout`, { method: 'POST', redirect: 'manual' })
  if (res.status !== 303) throw new Error(`Pay: HTTP ${res.status} ${await res.text()}`)
  const [checkoutId] = (await service.checkoutIds(invoiceId)).slice(-1)
  if (checkoutId === undefined) throw new Error('Pay made no attempt')
  return checkoutId
}

export function sandboxDriver(): ProviderDriver {
  return {
    name: 'sandbox',
    currency: 'USD',
    env: { ...SERVICES },
    endsCheckout: false,
    acquirer: undefined,
    async pay(service, invoiceId, action, hold) {
      const outcome = action === 'decline' ? 'failed' : hold ? 'hold' : 'paid'
      const res = await fetch(`${service.url}/pay/${invoiceId}/simulate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcome }),
      })
      if (res.status !== 200) throw new Error(`simulate: HTTP ${res.status} ${await res.text()}`)
    },
    async refuseNextRefund(serviceUrl, apiKey, invoiceId) {
      const res = await fetch(`${serviceUrl}/api/v1/sandbox/invoices/${invoiceId}/fail-next-refund`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey },
      })
      if (res.status !== 200) throw new Error(`fail-next-refund: HTTP ${res.status} ${await res.text()}`)
    },
    close: async () => undefined,
  }
}

export async function stripeDriver(): Promise<ProviderDriver> {
  const fake = await startFakeStripe()
  return {
    name: 'stripe',
    currency: 'USD',
    env: {
      ...SERVICES,
      SERVICE_PROVIDERS: 'card=stripe,held=stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
      STRIPE_API_URL: fake.apiUrl,
    },
    acquirer: fake,
    endsCheckout: true,
    async pay(service, invoiceId, action) {
      await fake.buyer(await pressPay(service, invoiceId), action)
    },
    forge(invoiceId, paymentId) {
      // a well-formed event signed with a secret that is not the endpoint's
      const body = JSON.stringify({
        id: 'evt_forged',
        object: 'event',
        type: 'payment_intent.succeeded',
        data: {
          object: {
            id: paymentId,
            object: 'payment_intent',
            status: 'succeeded',
            metadata: { invoice_id: invoiceId, attempt: '1' },
          },
        },
      })
      return {
        headers: {
          'content-type': 'application/json',
          'stripe-signature': stripeSignature('whsec_not_the_endpoints', body),
        },
        body,
      }
    },
    refuseNextRefund: async () => fake.refuseNextRefund(),
    failRefundLater: (refundId) => fake.failRefund(refundId, 'expired_or_canceled_card'),
    forgeRefund(refundId) {
      const body = JSON.stringify({
        id: 'evt_forged_refund',
        object: 'event',
        type: 'refund.failed',
        data: { object: { id: refundId, object: 'refund', status: 'failed', failure_reason: 'unknown' } },
      })
      return {
        headers: {
          'content-type': 'application/json',
          'stripe-signature': stripeSignature('whsec_not_the_endpoints', body),
        },
        body,
      }
    },
    close: () => fake.close(),
  }
}

export async function yookassaDriver(): Promise<ProviderDriver> {
  const fake = await startFakeYooKassa()
  return {
    name: 'yookassa',
    currency: 'RUB',
    env: {
      ...SERVICES,
      CURRENCIES: 'RUB',
      SERVICE_PROVIDERS: 'card=yookassa,held=yookassa',
      YOOKASSA_SHOP_ID: fake.shopId,
      YOOKASSA_SECRET_KEY: fake.secretKey,
      YOOKASSA_API_URL: fake.apiUrl,
      // the fake sends from 127.0.0.1 (the proxy the service trusts): a forwarded address is the sender
      TRUST_PROXY: '127.0.0.1',
      YOOKASSA_NOTIFICATION_SOURCES: '127.0.0.1/32',
    },
    acquirer: fake,
    endsCheckout: false,
    async pay(service, invoiceId, action) {
      await fake.buyer(await pressPay(service, invoiceId), action)
    },
    forge(_invoiceId, paymentId) {
      // unsigned, as YooKassa's are: what gives it away is the sender, outside YooKassa's ranges
      const body = JSON.stringify({
        type: 'notification',
        event: 'payment.succeeded',
        object: { id: paymentId, status: 'succeeded', paid: true },
      })
      return { headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' }, body }
    },
    refuseNextRefund: async () => fake.refuseNextRefund(),
    forgeRefund(refundId) {
      const body = JSON.stringify({
        type: 'notification',
        event: 'refund.succeeded',
        object: { id: refundId, status: 'succeeded' },
      })
      return { headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' }, body }
    },
    close: () => fake.close(),
  }
}
