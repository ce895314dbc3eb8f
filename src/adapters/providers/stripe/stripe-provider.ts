import { checkoutOrigins } from '../checkout-origins.js'
import Stripe from 'stripe'
import { AppError } from '../../../domain/errors.js'
import { currencyExponent } from '../../../domain/currencies.js'
import type { InvoiceId } from '../../../domain/ids.js'
import type { Minor } from '../../../domain/money.js'
import {
  NotificationRejected,
  type AcquirerPaymentState,
  type AttemptReference,
  type CheckoutRequest,
  type CheckoutStarted,
  type HeldPayment,
  type IncomingNotification,
  type NotificationOutcome,
  type PaymentProvider,
  type PaymentRef,
  type PaymentUpdate,
  type RefundRequest,
  type RefundResult,
} from '../../../ports/payment-provider.js'
import { fromStripeAmount, toStripeAmount } from './amounts.js'

export interface StripeSettings {
  /** The account's secret key (`sk_live_…`, `sk_test_…`) or a restricted key (`rk_…`). Never in a message. */
  readonly secretKey: string
  /** The signing secret of the webhook endpoint (`whsec_…`). */
  readonly webhookSecret: string
  /** The API's base URL: https://api.stripe.com, or a local fake's http://127.0.0.1:PORT. */
  readonly apiUrl: string
  /** Per request; a slower answer is `provider_unavailable`. */
  readonly timeoutMs: number
  /** How old a signed notification may be, in seconds (Stripe's default: 300). */
  readonly webhookToleranceSeconds: number
}

export const STRIPE_API_URL = 'https://api.stripe.com'
export const STRIPE_WEBHOOK_TOLERANCE_SECONDS = 300

/**
 * Stripe's Checkout Session ends 30 minutes to 24 hours after it is created
 * (https://docs.stripe.com/api/checkout/sessions/create#create_checkout_session-expires_at). A minute of margin
 * on each side keeps a clock a little off ours, or a slow request, inside the window.
 */
const SESSION_MIN_SECONDS = 30 * 60 + 60
const SESSION_MAX_SECONDS = 24 * 60 * 60 - 60

/**
 * The Stripe adapter (docs/providers.md): the buyer pays at a Stripe Checkout Session, created on the buyer's click
 * with our idempotency key; a holding service's payment is authorised only (`capture_method=manual`) and captured or
 * cancelled through its PaymentIntent. Notifications are Stripe events verified with the SDK; fetches retrieve the
 * PaymentIntent, or the Checkout Session while it has none. Every call goes through the official `stripe` SDK.
 */
export function createStripeProvider(settings: StripeSettings): PaymentProvider {
  const stripe = new Stripe(settings.secretKey, { ...endpoint(settings.apiUrl), ...clientOptions(settings) })
  const call = <T>(what: string, run: () => Promise<T>): Promise<T> =>
    run().catch((error: unknown) => {
      throw translateError(error, what, settings.secretKey)
    })

  const paymentIdOf = async (ref: PaymentRef): Promise<string> => {
    if (ref.paymentId !== null) return ref.paymentId
    if (ref.checkoutId === null) throw new AppError('provider_error', 'no Stripe payment is known for this attempt')
    const checkoutId = ref.checkoutId
    const session = await call('retrieving the checkout session', () => stripe.checkout.sessions.retrieve(checkoutId))
    const pi = idOf(session.payment_intent)
    if (pi === null) throw new AppError('provider_error', 'the acquirer refused: the checkout session has no payment')
    return pi
  }

  return {
    name: 'stripe',
    capabilities: { checkout: true, simulate: false, hold: true, refund: true, fetch: true },
    // Checkout Sessions live at checkout.stripe.com (a session's `url`); an API elsewhere (a local fake in tests)
    // serves its own
    checkoutOrigins: checkoutOrigins('https://checkout.stripe.com', settings.apiUrl, STRIPE_API_URL),
    currencies: undefined,

    createPayment(request) {
      // Local: the Checkout Session is created when the buyer presses Pay. An amount Stripe could never charge in
      // its currency is refused now, while the merchant is there to hear it (validation_failed naming `amount`).
      const exponent = currencyExponent(request.currency.toUpperCase())
      if (exponent !== undefined) toStripeAmount(request.amount, request.currency, exponent)
      return { url: request.payUrl, qrData: request.payUrl }
    },

    async startCheckout(request: CheckoutRequest): Promise<CheckoutStarted> {
      const unitAmount = toStripeAmount(request.amount, request.currency, request.exponent)
      const metadata = referenceMetadata(request.reference)
      const session = await call('creating the checkout session', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: request.currency.toLowerCase(),
                  unit_amount: unitAmount,
                  // Stripe requires a non-empty product name
                  product_data: { name: request.description.trim() || `Invoice ${request.reference.invoiceId}` },
                },
              },
            ],
            payment_intent_data: { capture_method: request.hold ? 'manual' : 'automatic', metadata },
            metadata,
            client_reference_id: request.reference.invoiceId,
            success_url: request.returnUrl,
            cancel_url: request.returnUrl,
            expires_at: sessionExpiry(request.expiresAt, request.now),
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      )
      if (session.url === null) throw new AppError('provider_error', 'the acquirer refused: no checkout page was given')
      return { checkoutId: session.id, paymentId: idOf(session.payment_intent), redirectUrl: session.url }
    },

    async verifyNotification(notification: IncomingNotification): Promise<NotificationOutcome> {
      const header = notification.headers['stripe-signature']
      if (header === undefined || header === '') throw new NotificationRejected(401, 'no Stripe-Signature header')
      if (typeof header !== 'string') throw new NotificationRejected(401, 'more than one Stripe-Signature header')
      let event: Stripe.Event
      try {
        event = await stripe.webhooks.constructEventAsync(
          notification.rawBody,
          header,
          settings.webhookSecret,
          settings.webhookToleranceSeconds,
          undefined,
          notification.now.getTime(),
        )
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError)
          throw new NotificationRejected(401, `the Stripe signature does not verify: ${error.message}`)
        throw new NotificationRejected(400, 'the Stripe event is not JSON')
      }
      return outcomeOf(event)
    },

    async fetchPayment(ref: PaymentRef, reference: AttemptReference): Promise<PaymentUpdate> {
      if (ref.paymentId !== null) {
        const id = ref.paymentId
        const pi = await call('retrieving the payment', () => stripe.paymentIntents.retrieve(id))
        return { ...updateOfPaymentIntent(pi, ref.checkoutId), reference: referenceOf(pi.metadata) ?? reference }
      }
      if (ref.checkoutId === null) throw new AppError('provider_error', 'no Stripe payment is known for this attempt')
      const checkoutId = ref.checkoutId
      const session = await call('retrieving the checkout session', () =>
        stripe.checkout.sessions.retrieve(checkoutId, { expand: ['payment_intent'] }),
      )
      const pi = session.payment_intent
      if (pi !== null && typeof pi === 'object')
        return { ...updateOfPaymentIntent(pi, session.id), reference: referenceOf(pi.metadata) ?? reference }
      return { ...updateOfSession(session), reference: referenceOf(session.metadata) ?? reference }
    },

    async captureHold(payment: HeldPayment): Promise<void> {
      const id = await paymentIdOf(payment)
      await call('capturing the payment', () =>
        stripe.paymentIntents.capture(id, {}, { idempotencyKey: payment.idempotencyKey }),
      )
    },

    async endCheckout(ref: PaymentRef): Promise<void> {
      // https://docs.stripe.com/api/checkout/sessions/expire: only an open session can be expired
      if (ref.checkoutId === null) return
      const session = await call('reading the checkout session', () =>
        stripe.checkout.sessions.retrieve(ref.checkoutId as string),
      )
      if (session.status !== 'open') return
      await call('expiring the checkout session', () => stripe.checkout.sessions.expire(session.id))
    },

    async releaseHold(payment: HeldPayment): Promise<void> {
      const id = await paymentIdOf(payment)
      await call('cancelling the payment', () =>
        stripe.paymentIntents.cancel(id, {}, { idempotencyKey: payment.idempotencyKey }),
      )
    },

    async refund(request: RefundRequest): Promise<RefundResult> {
      const id = await paymentIdOf(request)
      const amount = toStripeAmount(request.amount, request.currency, request.exponent)
      const metadata: Record<string, string> = { invoice_id: request.invoiceId }
      if (request.reason !== null) metadata['reason'] = request.reason.slice(0, 500)
      const refund = await call('refunding the payment', () =>
        stripe.refunds.create({ payment_intent: id, amount, metadata }, { idempotencyKey: request.idempotencyKey }),
      )
      return resultOfRefund(refund)
    },

    // https://docs.stripe.com/api/refunds/retrieve
    async fetchRefund(refundId: string): Promise<RefundResult> {
      return resultOfRefund(await call('retrieving the refund', () => stripe.refunds.retrieve(refundId)))
    },
  }
}

/** The SDK's host/port/protocol from a base URL (https://github.com/stripe/stripe-node#configuration). */
function endpoint(apiUrl: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(apiUrl)
  const protocol = url.protocol === 'http:' ? 'http' : 'https'
  const port = url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port)
  return { host: url.hostname, port, protocol }
}

function clientOptions(settings: StripeSettings): Stripe.StripeConfig {
  // No retries inside the SDK: a failed call is the caller's to repeat (with the same idempotency key), and a
  // timeout then means one timeout, not several.
  return { timeout: settings.timeoutMs, maxNetworkRetries: 0, telemetry: false }
}

function sessionExpiry(expiresAt: Date, now: Date): number {
  const nowSeconds = Math.floor(now.getTime() / 1000)
  const wanted = Math.floor(expiresAt.getTime() / 1000)
  return Math.min(Math.max(wanted, nowSeconds + SESSION_MIN_SECONDS), nowSeconds + SESSION_MAX_SECONDS)
}

function referenceMetadata(reference: AttemptReference): Record<string, string> {
  return { invoice_id: reference.invoiceId, attempt: String(reference.attempt) }
}

function referenceOf(metadata: Stripe.Metadata | null | undefined): AttemptReference | undefined {
  const invoiceId = metadata?.['invoice_id']
  const attempt = metadata?.['attempt']
  if (invoiceId === undefined || invoiceId === '' || attempt === undefined || !/^[1-9][0-9]{0,8}$/.test(attempt))
    return undefined
  return { invoiceId: invoiceId as InvoiceId, attempt: Number(attempt) }
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value === null || value === undefined) return null
  return typeof value === 'string' ? value : value.id
}

function ourAmount(amount: number | null | undefined, currency: string | null | undefined): Minor | null {
  if (amount === null || amount === undefined || currency === null || currency === undefined) return null
  const exponent = currencyExponent(currency.toUpperCase())
  return exponent === undefined ? null : fromStripeAmount(amount, currency, exponent)
}

/** PaymentIntent statuses (https://docs.stripe.com/api/payment_intents/object#payment_intent_object-status). */
function stateOfPaymentIntent(status: Stripe.PaymentIntent.Status): AcquirerPaymentState {
  switch (status) {
    case 'requires_capture':
      return 'held'
    case 'succeeded':
      return 'succeeded'
    case 'canceled':
      return 'canceled'
    default:
      // requires_payment_method (a declined card: the buyer may try again), requires_confirmation,
      // requires_action, processing
      return 'open'
  }
}

function updateOfPaymentIntent(pi: Stripe.PaymentIntent, checkoutId: string | null): PaymentUpdate {
  const state = stateOfPaymentIntent(pi.status)
  const amount = state === 'held' ? pi.amount_capturable : state === 'succeeded' ? pi.amount_received : pi.amount
  return {
    reference: referenceOf(pi.metadata),
    checkoutId,
    paymentId: pi.id,
    state,
    amount: ourAmount(amount, pi.currency),
    currency: pi.currency.toUpperCase(),
  }
}

/** A session without a PaymentIntent: nobody has paid (https://docs.stripe.com/api/checkout/sessions/object). */
function updateOfSession(session: Stripe.Checkout.Session): PaymentUpdate {
  return {
    reference: referenceOf(session.metadata),
    checkoutId: session.id,
    paymentId: idOf(session.payment_intent),
    state: session.status === 'expired' ? 'ended' : 'open',
    amount: null,
    currency: session.currency === null ? null : session.currency.toUpperCase(),
  }
}

/**
 * Events to updates (docs/providers.md#status-mapping; https://docs.stripe.com/api/events/types).
 * `checkout.session.completed` is acknowledged and ignored: the PaymentIntent's own event says what happened to the
 * money (held or captured), and a webhook's session never embeds its PaymentIntent.
 */
function outcomeOf(event: Stripe.Event): NotificationOutcome {
  const object = (event.data as { object?: unknown } | undefined)?.object
  if (typeof object !== 'object' || object === null)
    throw new NotificationRejected(400, 'the Stripe event has no data.object')
  switch (event.type) {
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.succeeded':
    case 'payment_intent.canceled':
    case 'payment_intent.payment_failed': {
      const pi = object as Stripe.PaymentIntent
      if (typeof pi.id !== 'string' || typeof pi.status !== 'string' || typeof pi.currency !== 'string')
        throw new NotificationRejected(400, `the Stripe event ${event.type} carries no PaymentIntent`)
      const update = updateOfPaymentIntent(pi, null)
      // The event names what happened even when the object has moved on since it was sent.
      const state: AcquirerPaymentState =
        event.type === 'payment_intent.amount_capturable_updated'
          ? 'held'
          : event.type === 'payment_intent.succeeded'
            ? 'succeeded'
            : event.type === 'payment_intent.canceled'
              ? 'canceled'
              : 'open'
      if (state === update.state) return { kind: 'update', update, event: event.type }
      return { kind: 'update', update: { ...update, state }, event: event.type }
    }
    case 'checkout.session.expired': {
      const session = object as Stripe.Checkout.Session
      if (typeof session.id !== 'string')
        throw new NotificationRejected(400, 'the Stripe event carries no Checkout Session')
      return { kind: 'update', update: { ...updateOfSession(session), state: 'ended' }, event: event.type }
    }
    // https://docs.stripe.com/changelog/acacia/2024-10-28/refund-webhook-update: every refund sends these, with the
    // Refund as data.object; charge.refunded (a Charge, without its refunds) says nothing they do not, and is ignored
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed': {
      const refund = object as Stripe.Refund
      if (typeof refund.id !== 'string' || refund.object !== 'refund')
        throw new NotificationRejected(400, `the Stripe event ${event.type} carries no Refund`)
      const result = resultOfRefund(refund)
      // the event names what happened even when the object was sent before it moved on
      if (event.type === 'refund.failed' && result.state !== 'failed')
        return {
          kind: 'refund',
          refund: { ...result, state: 'failed', failureReason: 'Stripe failed the refund' },
          event: event.type,
        }
      return { kind: 'refund', refund: result, event: event.type }
    }
    default:
      return { kind: 'ignored', event: event.type }
  }
}

/** A Refund's status (https://docs.stripe.com/api/refunds/object#refund_object-status), with its failure_reason. */
function resultOfRefund(refund: Stripe.Refund): RefundResult {
  const status = refund.status
  const state =
    status === 'succeeded' ? 'succeeded' : status === 'failed' || status === 'canceled' ? 'failed' : 'pending'
  if (state !== 'failed') return { refundId: refund.id, state }
  return {
    refundId: refund.id,
    state,
    failureReason: `Stripe ${status === 'canceled' ? 'cancelled' : 'failed'} the refund${
      refund.failure_reason ? `: ${refund.failure_reason}` : ''
    }`,
  }
}

/**
 * The SDK's errors to ours (https://docs.stripe.com/error-handling, https://docs.stripe.com/api/errors): the
 * acquirer refused (4xx: card, invalid request, authentication, permission, idempotency) → `provider_error` with its
 * message; it could not answer (connection, timeout, 5xx, 429, 409 in-progress) → `provider_unavailable`. Messages
 * pass through `redact`: Stripe's own "Invalid API Key provided: sk_test_****…" never reaches a log.
 */
function translateError(error: unknown, what: string, secretKey: string): unknown {
  if (error instanceof AppError) return error
  if (!(error instanceof Stripe.errors.StripeError)) return error
  const message = redact(error.message, secretKey)
  const status = error.statusCode
  if (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    status === undefined ||
    status >= 500 ||
    status === 429 ||
    status === 409
  )
    return new AppError('provider_unavailable', `Stripe did not answer ${what}: ${message}`)
  return new AppError('provider_error', `the acquirer refused: ${message}`)
}

function redact(message: string, secretKey: string): string {
  const masked = secretKey === '' ? message : message.split(secretKey).join('[redacted]')
  return masked.replace(/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9*]*/g, '[redacted key]')
}
