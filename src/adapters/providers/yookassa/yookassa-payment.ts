import { currencyExponent } from '../../../domain/currencies.js'
import { AppError } from '../../../domain/errors.js'
import type { InvoiceId } from '../../../domain/ids.js'
import { formatAmount, parseAmount, type Minor } from '../../../domain/money.js'
import type { AcquirerPaymentState, AttemptReference, PaymentUpdate } from '../../../ports/payment-provider.js'
import { isObject } from './yookassa-api.js'

/**
 * YooKassa's payment object, the fields we read (https://yookassa.ru/developers/api#payment_object), and its
 * translation into the port's acquirer-neutral update (docs/providers.md#status-mapping).
 */
export type YooKassaStatus = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled'

export interface YooKassaAmount {
  /** Major units as a decimal string: "10.50". */
  readonly value: string
  readonly currency: string
}

export interface YooKassaPayment {
  readonly id: string
  readonly status: YooKassaStatus
  readonly amount: YooKassaAmount
  readonly metadata: Readonly<Record<string, unknown>>
  readonly confirmationUrl: string | undefined
}

// pending → open; waiting_for_capture → held; succeeded → succeeded; canceled → canceled, whatever came before: a
// payment YooKassa cancels unpaid (a declined card, the buyer's time to pay ran out) cannot be paid any more, the
// buyer's retry is a new payment (https://yookassa.ru/developers/payment-acceptance/after-the-payment/declined-payments),
// and the app treats a cancel before the hold as the attempt ending (docs/providers.md#status-mapping).
const STATE: Readonly<Record<YooKassaStatus, AcquirerPaymentState>> = {
  pending: 'open',
  waiting_for_capture: 'held',
  succeeded: 'succeeded',
  canceled: 'canceled',
}

/** Reads a payment object from an API answer; `provider_error` when it is not one. */
export function readPayment(json: unknown): YooKassaPayment {
  const amount = isObject(json) ? json['amount'] : undefined
  if (
    !isObject(json) ||
    typeof json['id'] !== 'string' ||
    typeof json['status'] !== 'string' ||
    !(json['status'] in STATE) ||
    !isObject(amount) ||
    typeof amount['value'] !== 'string' ||
    typeof amount['currency'] !== 'string'
  )
    throw new AppError('provider_error', 'YooKassa answered with something that is not a payment')
  const confirmation = json['confirmation']
  const url = isObject(confirmation) ? confirmation['confirmation_url'] : undefined
  return {
    id: json['id'],
    status: json['status'] as YooKassaStatus,
    amount: { value: amount['value'], currency: amount['currency'] },
    metadata: isObject(json['metadata']) ? json['metadata'] : {},
    confirmationUrl: typeof url === 'string' ? url : undefined,
  }
}

/** Our attempt reference from the metadata we put on the payment at checkout; undefined when it carries none. */
export function readReference(metadata: Readonly<Record<string, unknown>>): AttemptReference | undefined {
  const invoiceId = metadata['invoice_id']
  const attempt = metadata['attempt']
  if (typeof invoiceId !== 'string' || invoiceId === '') return undefined
  if (typeof attempt !== 'string' || !/^[1-9][0-9]{0,8}$/.test(attempt)) return undefined
  return { invoiceId: invoiceId as InvoiceId, attempt: Number(attempt) }
}

export function metadataOf(reference: AttemptReference): Record<string, string> {
  return { invoice_id: reference.invoiceId, attempt: String(reference.attempt) }
}

/** Our minor units → YooKassa's decimal string in major units, exactly (1050 @2 → "10.50"). */
export function toYooKassaAmount(amount: Minor, currency: string, exponent: number): YooKassaAmount {
  return { value: formatAmount(amount, exponent), currency }
}

/**
 * YooKassa's decimal string → our minor units, exactly: "10.50" RUB → 1050. Zeros past the currency's exponent are
 * dropped ("100.00" of a zero-decimal currency → 100); any other digit there is an answer we cannot take.
 */
export function fromYooKassaAmount(amount: YooKassaAmount): Minor {
  const exponent = currencyExponent(amount.currency)
  if (exponent === undefined) throw new AppError('provider_error', `YooKassa answered in an unknown currency`)
  const [whole = '', frac = ''] = amount.value.split('.')
  const kept = /^0*$/.test(frac.slice(exponent)) ? frac.slice(0, exponent) : frac
  const parsed = parseAmount(kept === '' ? whole : `${whole}.${kept}`, exponent)
  if (!parsed.ok) throw new AppError('provider_error', 'YooKassa answered with an amount we cannot read')
  return parsed.minor
}

export function toUpdate(payment: YooKassaPayment, fallback?: AttemptReference): PaymentUpdate {
  return {
    reference: readReference(payment.metadata) ?? fallback,
    checkoutId: payment.id,
    paymentId: payment.id,
    state: STATE[payment.status],
    amount: fromYooKassaAmount(payment.amount),
    currency: payment.amount.currency,
  }
}
