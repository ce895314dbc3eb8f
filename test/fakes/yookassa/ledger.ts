/**
 * The fake YooKassa's state: payments and refunds as YooKassa keeps them, and the moves between statuses that its
 * API, its hosted confirmation page and its own timers make. No HTTP here (fake-yookassa.ts serves it).
 *
 * Shapes and rules from YooKassa's API reference:
 * - payment object: https://yookassa.ru/developers/api#payment_object
 * - create payment: https://yookassa.ru/developers/api#create_payment (capture defaults to false)
 * - capture: https://yookassa.ru/developers/api#capture_payment (only from waiting_for_capture; a smaller amount
 *   captures part, the rest is released)
 * - cancel: https://yookassa.ru/developers/api#cancel_payment (only from waiting_for_capture: the shop cannot cancel
 *   a pending payment, YooKassa cancels it when the time to pay runs out)
 * - refunds: https://yookassa.ru/developers/api#create_refund, #refund_object (only a succeeded payment; the sum of
 *   refunds never exceeds what was captured)
 * - cancellation_details: https://yookassa.ru/developers/payment-acceptance/after-the-payment/declined-payments
 *   (a declined card CANCELS the payment, unlike Stripe where the PaymentIntent stays open: the buyer's retry is a
 *   new payment; a hold left uncaptured is cancelled with `expired_on_capture`)
 */
import { randomUUID } from 'node:crypto'
import { currencyExponent } from '../../../src/domain/currencies.js'
import { formatAmount, parseAmount, type Minor } from '../../../src/domain/money.js'
import { ApiError } from './api-error.js'

export type Status = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled'

const invalid = (description: string, parameter?: string): ApiError =>
  new ApiError(400, 'invalid_request', description, parameter)

export interface Payment {
  readonly id: string
  status: Status
  /** Minor units of the currency (kopecks for RUB): what is authorised, then what was captured. */
  amount: number
  readonly currency: string
  readonly exponent: number
  readonly capture: boolean
  readonly description: string | undefined
  readonly metadata: Readonly<Record<string, string>>
  readonly returnUrl: string
  readonly confirmationUrl: string
  readonly createdAt: Date
  paidWith: boolean
  capturedAt: Date | undefined
  expiresAt: Date | undefined
  cancellation: { party: string; reason: string } | undefined
  refunded: number
}

export interface Refund {
  readonly id: string
  readonly paymentId: string
  readonly amount: number
  readonly currency: string
  readonly exponent: number
  readonly description: string | undefined
  readonly createdAt: Date
}

/** What YooKassa notifies about (https://yookassa.ru/developers/using-api/webhooks#events). */
export interface Notice {
  readonly event: 'payment.waiting_for_capture' | 'payment.succeeded' | 'payment.canceled' | 'refund.succeeded'
  readonly object: Record<string, unknown>
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function readAmount(value: unknown, parameter: string): { minor: number; currency: string; exponent: number } {
  if (!isRecord(value)) throw invalid(`${parameter} is required`, parameter)
  const currency = value['currency']
  const exponent = typeof currency === 'string' ? currencyExponent(currency) : undefined
  if (typeof currency !== 'string' || exponent === undefined) throw invalid('Invalid currency', `${parameter}.currency`)
  const text = value['value']
  const parsed = typeof text === 'string' ? parseAmount(text, exponent) : undefined
  if (parsed === undefined || !parsed.ok || parsed.minor <= 0)
    throw invalid('Invalid amount value', `${parameter}.value`)
  return { minor: parsed.minor, currency, exponent }
}

const money = (minor: number, currency: string, exponent: number): Record<string, string> => ({
  value: formatAmount(minor as Minor, exponent),
  currency,
})

export class Ledger {
  readonly payments = new Map<string, Payment>()
  readonly refunds = new Map<string, Refund>()

  constructor(
    private readonly shopId: string,
    private readonly confirmationUrlOf: (paymentId: string) => string,
  ) {}

  paymentJson(p: Payment): Record<string, unknown> {
    const amount = money(p.amount, p.currency, p.exponent)
    return {
      id: p.id,
      status: p.status,
      amount,
      ...(p.description === undefined ? {} : { description: p.description }),
      recipient: { account_id: this.shopId, gateway_id: '100500' },
      ...(p.paidWith
        ? {
            payment_method: {
              type: 'bank_card',
              id: p.id,
              saved: false,
              title: 'Bank card *4477',
              card: {
                first6: '555555',
                last4: '4477',
                expiry_month: '12',
                expiry_year: '2030',
                card_type: 'MasterCard',
              },
            },
          }
        : {}),
      ...(p.capturedAt === undefined ? {} : { captured_at: p.capturedAt.toISOString() }),
      created_at: p.createdAt.toISOString(),
      ...(p.expiresAt === undefined ? {} : { expires_at: p.expiresAt.toISOString() }),
      ...(p.status === 'pending'
        ? { confirmation: { type: 'redirect', return_url: p.returnUrl, confirmation_url: p.confirmationUrl } }
        : {}),
      test: true,
      ...(p.refunded > 0 ? { refunded_amount: money(p.refunded, p.currency, p.exponent) } : {}),
      paid: p.status === 'waiting_for_capture' || p.status === 'succeeded',
      refundable: p.status === 'succeeded' && p.refunded < p.amount,
      metadata: p.metadata,
      ...(p.cancellation === undefined ? {} : { cancellation_details: p.cancellation }),
    }
  }

  refundJson(r: Refund): Record<string, unknown> {
    return {
      id: r.id,
      payment_id: r.paymentId,
      status: 'succeeded',
      created_at: r.createdAt.toISOString(),
      amount: money(r.amount, r.currency, r.exponent),
      ...(r.description === undefined ? {} : { description: r.description }),
    }
  }

  get(id: string): Payment {
    const p = this.payments.get(id)
    if (p === undefined) throw new ApiError(404, 'not_found', 'Payment not found')
    return p
  }

  create(body: unknown): Payment {
    if (!isRecord(body)) throw invalid('The request body is not a JSON object')
    const amount = readAmount(body['amount'], 'amount')
    const capture = body['capture'] ?? false
    if (typeof capture !== 'boolean') throw invalid('capture must be a boolean', 'capture')
    const confirmation = body['confirmation']
    if (!isRecord(confirmation) || confirmation['type'] !== 'redirect')
      throw invalid('This fake supports the redirect confirmation only', 'confirmation.type')
    const returnUrl = confirmation['return_url']
    if (typeof returnUrl !== 'string' || !/^https?:\/\//.test(returnUrl))
      throw invalid('return_url is required for a redirect confirmation', 'confirmation.return_url')
    const description = body['description']
    if (description !== undefined && (typeof description !== 'string' || Array.from(description).length > 128))
      throw invalid('description is longer than 128 characters', 'description')
    const metadata = body['metadata'] ?? {}
    if (
      !isRecord(metadata) ||
      Object.keys(metadata).length > 16 ||
      Object.entries(metadata).some(([k, v]) => k.length > 32 || typeof v !== 'string' || v.length > 512)
    )
      throw invalid('metadata: up to 16 keys of 32 characters, string values of 512', 'metadata')
    const id = randomUUID()
    const payment: Payment = {
      id,
      status: 'pending',
      amount: amount.minor,
      currency: amount.currency,
      exponent: amount.exponent,
      capture,
      description,
      metadata: metadata as Record<string, string>,
      returnUrl,
      confirmationUrl: this.confirmationUrlOf(id),
      createdAt: new Date(),
      paidWith: false,
      capturedAt: undefined,
      expiresAt: undefined,
      cancellation: undefined,
      refunded: 0,
    }
    this.payments.set(id, payment)
    return payment
  }

  /** The buyer confirms on the hosted page: a hold (capture false) or a captured payment. */
  pay(id: string): Notice[] {
    const p = this.get(id)
    if (p.status !== 'pending') throw invalid(`The payment is ${p.status}; it cannot be paid`)
    p.paidWith = true
    if (p.capture) {
      p.status = 'succeeded'
      p.capturedAt = new Date()
      return [{ event: 'payment.succeeded', object: this.paymentJson(p) }]
    }
    p.status = 'waiting_for_capture'
    p.expiresAt = new Date(Date.now() + 7 * 24 * 3600_000) // a card hold lasts 7 days
    return [{ event: 'payment.waiting_for_capture', object: this.paymentJson(p) }]
  }

  /** The issuer declines the card: YooKassa cancels the payment. */
  decline(id: string): Notice[] {
    const p = this.get(id)
    if (p.status !== 'pending') throw invalid(`The payment is ${p.status}; it cannot be declined`)
    p.paidWith = true
    return this.cancelWith(p, 'payment_network', 'insufficient_funds')
  }

  /** YooKassa's own timers: the buyer's time to pay ran out (pending), or the hold lapsed (waiting_for_capture). */
  expire(id: string): Notice[] {
    const p = this.get(id)
    if (p.status !== 'pending') throw invalid(`The payment is ${p.status}, not pending`)
    return this.cancelWith(p, 'yoo_money', 'expired_on_confirmation')
  }

  lapse(id: string): Notice[] {
    const p = this.get(id)
    if (p.status !== 'waiting_for_capture') throw invalid(`The payment is ${p.status}, not waiting_for_capture`)
    return this.cancelWith(p, 'yoo_money', 'expired_on_capture')
  }

  capture(id: string, body: unknown): Notice[] {
    const p = this.get(id)
    if (p.status !== 'waiting_for_capture')
      throw invalid(`Incorrect payment status: ${p.status}. Only a waiting_for_capture payment can be captured`)
    if (isRecord(body) && body['amount'] !== undefined) {
      const amount = readAmount(body['amount'], 'amount')
      if (amount.currency !== p.currency) throw invalid('The currency differs from the payment', 'amount.currency')
      if (amount.minor > p.amount) throw invalid('The amount exceeds the authorised amount', 'amount.value')
      p.amount = amount.minor
    }
    p.status = 'succeeded'
    p.capturedAt = new Date()
    p.expiresAt = undefined
    return [{ event: 'payment.succeeded', object: this.paymentJson(p) }]
  }

  cancel(id: string): Notice[] {
    const p = this.get(id)
    if (p.status !== 'waiting_for_capture')
      throw invalid(`Incorrect payment status: ${p.status}. Only a waiting_for_capture payment can be canceled`)
    return this.cancelWith(p, 'merchant', 'canceled_by_merchant')
  }

  refund(body: unknown): { refund: Refund; notices: Notice[] } {
    if (!isRecord(body)) throw invalid('The request body is not a JSON object')
    const paymentId = body['payment_id']
    if (typeof paymentId !== 'string') throw invalid('payment_id is required', 'payment_id')
    const p = this.payments.get(paymentId)
    if (p === undefined) throw invalid('No payment with this id', 'payment_id')
    if (p.status !== 'succeeded') throw invalid(`Incorrect payment status: ${p.status}. Only a succeeded payment`)
    const amount = readAmount(body['amount'], 'amount')
    if (amount.currency !== p.currency) throw invalid('The currency differs from the payment', 'amount.currency')
    if (p.refunded + amount.minor > p.amount)
      throw invalid('The refund amount exceeds what is left to refund on the payment', 'amount.value')
    const description = body['description']
    if (description !== undefined && (typeof description !== 'string' || Array.from(description).length > 250))
      throw invalid('description is longer than 250 characters', 'description')
    p.refunded += amount.minor
    const refund: Refund = {
      id: randomUUID(),
      paymentId,
      amount: amount.minor,
      currency: p.currency,
      exponent: p.exponent,
      description,
      createdAt: new Date(),
    }
    this.refunds.set(refund.id, refund)
    return { refund, notices: [{ event: 'refund.succeeded', object: this.refundJson(refund) }] }
  }

  private cancelWith(p: Payment, party: string, reason: string): Notice[] {
    p.status = 'canceled'
    p.expiresAt = undefined
    p.cancellation = { party, reason }
    return [{ event: 'payment.canceled', object: this.paymentJson(p) }]
  }
}
