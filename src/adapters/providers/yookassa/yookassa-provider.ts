import { checkoutOrigins } from '../checkout-origins.js'
import { AppError } from '../../../domain/errors.js'
import { isInAnyIpRange, parseIpRange, type IpRange } from '../../../domain/ip-range.js'
import {
  NotificationRejected,
  type NotificationOutcome,
  type PaymentProvider,
  type PaymentRef,
  type RefundResult,
} from '../../../ports/payment-provider.js'
import { createYooKassaApi, isObject, YooKassaRefusal } from './yookassa-api.js'
import { metadataOf, readPayment, toUpdate, toYooKassaAmount } from './yookassa-payment.js'

/**
 * The YooKassa acquirer over its REST API v3 (https://yookassa.ru/developers/api): a payment per checkout attempt
 * with redirect confirmation, `capture: false` for services that hold, capture / cancel / refunds, and unsigned
 * notifications verified by their sender's address and a fresh GET of the payment (docs/providers.md).
 */
export interface YooKassaSettings {
  readonly shopId: string
  readonly secretKey: string
  /** Default https://api.yookassa.ru/v3. */
  readonly apiUrl: string
  /** The deadline of one API call. */
  readonly timeoutMs: number
  /** Where notifications may come from: CIDR ranges or single addresses, IPv4 or IPv6. */
  readonly notificationSources: readonly string[]
}

export const YOOKASSA_API_URL = 'https://api.yookassa.ru/v3'

/**
 * The addresses YooKassa sends notifications from, as it publishes them ("IP authentication" on
 * https://yookassa.ru/developers/using-api/webhooks). The operator can replace the list when YooKassa changes it.
 */
export const YOOKASSA_NOTIFICATION_SOURCES: readonly string[] = [
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.156.11',
  '77.75.156.35',
  '77.75.154.128/25',
  '2a02:5180::/32',
]

// The events a payment's notification can carry (https://yookassa.ru/developers/using-api/webhooks#events), and
// refund.succeeded, a refund's (docs/refunds.md#outcomes). The rest (payout.*, deal.*, payment_method.active) are
// acknowledged and ignored; a refunded payment stays `succeeded` at YooKassa, so a payment has nothing to move.
const PAYMENT_EVENTS = new Set(['payment.waiting_for_capture', 'payment.succeeded', 'payment.canceled'])
const REFUND_EVENTS = new Set(['refund.succeeded'])

// YooKassa limits (https://yookassa.ru/developers/api#create_payment, #create_refund).
const MAX_DESCRIPTION = 128
const MAX_REFUND_DESCRIPTION = 250

/** Parses the configured sources; throws naming the first entry that is not a range (config validates earlier). */
export function parseNotificationSources(sources: readonly string[]): IpRange[] {
  return sources.map((text) => {
    const range = parseIpRange(text.trim())
    if (range === undefined) throw new Error(`not an IP address or CIDR range: ${text}`)
    return range
  })
}

export function createYooKassaProvider(settings: YooKassaSettings): PaymentProvider {
  const api = createYooKassaApi(settings)
  const sources = parseNotificationSources(settings.notificationSources)

  const paymentIdOf = (ref: PaymentRef): string => {
    const id = ref.paymentId ?? ref.checkoutId
    if (id === null || id === '') throw new AppError('provider_error', 'no YooKassa payment id to act on')
    return id
  }
  const paymentPath = (ref: PaymentRef, action = ''): string =>
    `/payments/${encodeURIComponent(paymentIdOf(ref))}${action}`

  return {
    name: 'yookassa',
    capabilities: { checkout: true, simulate: false, hold: true, refund: true, fetch: true },
    // a redirect confirmation opens at yoomoney.ru (`confirmation.confirmation_url`); a local fake serves its own
    checkoutOrigins: checkoutOrigins('https://yoomoney.ru', settings.apiUrl, YOOKASSA_API_URL),
    // A payment's currency must be the shop account's (https://yookassa.ru/developers/api#create_payment,
    // amount.currency): RUB for a shop in Russia. The reference lists other ISO codes for accounts set up in them;
    // we offer none we cannot test.
    currencies: ['RUB'],

    // Create stays local (docs/api.md#create-an-invoice): the YooKassa payment is made when the buyer presses Pay.
    createPayment: (request) => ({ url: request.payUrl, qrData: request.payUrl }),

    async startCheckout(request) {
      // YooKassa takes no expiry for a redirect payment: an unpaid `pending` payment is cancelled by YooKassa itself
      // (cancellation_details.reason `expired_on_confirmation`) once the payment method's time to pay runs out. A
      // payment that still completes after the invoice expired is a late outcome the app voids or refunds.
      const json = await api.post(
        '/payments',
        {
          amount: toYooKassaAmount(request.amount, request.currency, request.exponent),
          capture: !request.hold,
          confirmation: { type: 'redirect', return_url: request.returnUrl },
          description: Array.from(request.description).slice(0, MAX_DESCRIPTION).join(''),
          metadata: metadataOf(request.reference),
        },
        request.idempotencyKey,
      )
      const payment = readPayment(json)
      if (payment.confirmationUrl === undefined)
        throw new AppError('provider_error', 'YooKassa created the payment without a confirmation URL')
      return { checkoutId: payment.id, paymentId: payment.id, redirectUrl: payment.confirmationUrl }
    },

    async verifyNotification(notification): Promise<NotificationOutcome> {
      // Notifications are unsigned: the sender must be one of YooKassa's addresses, and even then the body is only
      // a hint of which payment to ask about (https://yookassa.ru/developers/using-api/webhooks#ip).
      if (!isInAnyIpRange(notification.remoteAddress, sources))
        throw new NotificationRejected(401, 'the sender is not in the YooKassa notification address ranges')
      let body: unknown
      try {
        body = JSON.parse(notification.rawBody.toString('utf8')) as unknown
      } catch {
        throw new NotificationRejected(400, 'the notification is not JSON')
      }
      const object = isObject(body) ? body['object'] : undefined
      if (
        !isObject(body) ||
        body['type'] !== 'notification' ||
        typeof body['event'] !== 'string' ||
        !isObject(object) ||
        typeof object['id'] !== 'string' ||
        object['id'] === ''
      )
        throw new NotificationRejected(400, 'the notification is not a YooKassa notification object')
      const event = body['event']
      if (REFUND_EVENTS.has(event)) {
        // as for a payment: the refund fetched from YooKassa decides, never the body
        let refund: unknown
        try {
          refund = await api.get(`/refunds/${encodeURIComponent(object['id'])}`)
        } catch (err) {
          if (err instanceof YooKassaRefusal && err.httpStatus === 404)
            throw new NotificationRejected(400, 'the notification names a refund YooKassa does not know')
          throw err
        }
        return { kind: 'refund', refund: readRefund(refund), event }
      }
      if (!PAYMENT_EVENTS.has(event)) return { kind: 'ignored', event }
      let json: unknown
      try {
        json = await api.get(`/payments/${encodeURIComponent(object['id'])}`)
      } catch (err) {
        // YooKassa does not know the payment the body names: not a notification of this shop
        if (err instanceof YooKassaRefusal && err.httpStatus === 404)
          throw new NotificationRejected(400, 'the notification names a payment YooKassa does not know')
        throw err
      }
      // the fetched payment decides, never the body: the body may be stale, replayed or forged
      return { kind: 'update', update: toUpdate(readPayment(json)), event }
    },

    async fetchPayment(ref, reference) {
      return toUpdate(readPayment(await api.get(paymentPath(ref))), reference)
    },

    // A pending payment cannot be cancelled by the shop (https://yookassa.ru/developers/api#cancel_payment: only one
    // waiting_for_capture); YooKassa cancels an unpaid one itself. What still arrives is a late payment.
    endCheckout: async () => undefined,

    async captureHold(payment) {
      const json = await api.post(
        paymentPath(payment, '/capture'),
        { amount: toYooKassaAmount(payment.amount, payment.currency, payment.exponent) },
        payment.idempotencyKey,
      )
      const captured = readPayment(json)
      if (captured.status !== 'succeeded')
        throw new AppError('provider_error', `YooKassa did not capture the payment: it is ${captured.status}`)
    },

    async releaseHold(payment) {
      const json = await api.post(paymentPath(payment, '/cancel'), {}, payment.idempotencyKey)
      const released = readPayment(json)
      if (released.status !== 'canceled')
        throw new AppError('provider_error', `YooKassa did not cancel the payment: it is ${released.status}`)
    },

    async refund(request): Promise<RefundResult> {
      const json = await api.post(
        '/refunds',
        {
          payment_id: paymentIdOf(request),
          amount: toYooKassaAmount(request.amount, request.currency, request.exponent),
          ...(request.reason === null || request.reason === ''
            ? {}
            : { description: Array.from(request.reason).slice(0, MAX_REFUND_DESCRIPTION).join('') }),
        },
        request.idempotencyKey,
      )
      return readRefund(json)
    },

    // https://yookassa.ru/developers/api#get_refund
    async fetchRefund(refundId): Promise<RefundResult> {
      return readRefund(await api.get(`/refunds/${encodeURIComponent(refundId)}`))
    },
  }
}

/**
 * A refund object (https://yookassa.ru/developers/api#refund_object): status pending | succeeded | canceled, a
 * cancelled one with `cancellation_details.reason`.
 */
function readRefund(json: unknown): RefundResult {
  if (!isObject(json) || typeof json['id'] !== 'string' || typeof json['status'] !== 'string')
    throw new AppError('provider_error', 'YooKassa answered with something that is not a refund')
  const state = json['status'] === 'succeeded' ? 'succeeded' : json['status'] === 'canceled' ? 'failed' : 'pending'
  const details = json['cancellation_details']
  const why = isObject(details) && typeof details['reason'] === 'string' ? details['reason'] : undefined
  return {
    refundId: json['id'],
    state,
    ...(state === 'failed' && { failureReason: `YooKassa cancelled the refund${why === undefined ? '' : `: ${why}`}` }),
  }
}
