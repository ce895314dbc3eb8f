import { AppError, validationFailed } from '../../../domain/errors.js'
import { asMinor, type Minor } from '../../../domain/money.js'

/**
 * Stripe's own minor units, which are not always ISO 4217's (https://docs.stripe.com/currencies#minor-units,
 * #zero-decimal, #three-decimal, #special-cases):
 * - zero-decimal currencies: the amount is whole units (¥500 → 500). MGA is among them while ISO gives it 2 decimals;
 * - three-decimal currencies (BHD, JOD, KWD, OMR, TND): three decimals, but the last digit must be 0 for the
 *   payment partners (5.124 KWD cannot be charged; 5.120 can);
 * - ISK: zero-decimal in practice, yet still sent with two decimals "for backwards compatibility", so an amount
 *   must be divisible by 100 (5 ISK → 500);
 * - HUF and TWD: two decimals for charges; the whole-unit rule there is about payouts, which we never make;
 * - UGX: zero-decimal for charges (5000 UGX → 5000).
 * Every other currency has two decimals at Stripe.
 *
 * An amount Stripe cannot represent (a fraction of an MGA ariary, a KWD amount not ending in 0) is refused with
 * `validation_failed` naming `amount`: it is the invoice's amount that is wrong for this acquirer, not the acquirer
 * that failed, and no request could ever succeed — the create path refuses it before the invoice exists.
 */
interface StripeUnit {
  /** Stripe's decimals for the currency. */
  readonly decimals: number
  /** The amount in Stripe's units must be a multiple of this. */
  readonly step: number
}

const ZERO_DECIMAL = [
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]
const THREE_DECIMAL = ['BHD', 'JOD', 'KWD', 'OMR', 'TND']

const SPECIAL: ReadonlyMap<string, StripeUnit> = new Map<string, StripeUnit>([
  ...ZERO_DECIMAL.map((c) => [c, { decimals: 0, step: 1 }] as const),
  ...THREE_DECIMAL.map((c) => [c, { decimals: 3, step: 10 }] as const),
  ['ISK', { decimals: 2, step: 100 }],
])

/** Stripe's decimals and step for an ISO code (either case). */
export function stripeUnit(currency: string): StripeUnit {
  return SPECIAL.get(currency.toUpperCase()) ?? { decimals: 2, step: 1 }
}

/** Our minor units (ISO `exponent`) → Stripe's; throws `validation_failed` when Stripe cannot charge the amount. */
export function toStripeAmount(minor: Minor, currency: string, exponent: number): number {
  const unit = stripeUnit(currency)
  const shift = unit.decimals - exponent
  let amount: number
  if (shift >= 0) {
    amount = minor * 10 ** shift
  } else {
    const divisor = 10 ** -shift
    if (minor % divisor !== 0) throw unrepresentable(currency, exponent)
    amount = minor / divisor
  }
  if (!Number.isSafeInteger(amount) || amount % unit.step !== 0) throw unrepresentable(currency, exponent)
  return amount
}

/** Stripe's units → our minor units (ISO `exponent`); throws `provider_error` for an amount we cannot hold. */
export function fromStripeAmount(amount: number, currency: string, exponent: number): Minor {
  const shift = exponent - stripeUnit(currency).decimals
  if (shift >= 0) return asMinor(amount * 10 ** shift)
  const divisor = 10 ** -shift
  if (amount % divisor !== 0)
    throw new AppError(
      'provider_error',
      `the acquirer reported ${amount} in ${currency}, finer than its currency allows`,
    )
  return asMinor(amount / divisor)
}

/** Whether Stripe can charge `minor` (our units) in `currency`. */
export function stripeCanCharge(minor: Minor, currency: string, exponent: number): boolean {
  try {
    toStripeAmount(minor, currency, exponent)
    return true
  } catch {
    return false
  }
}

function unrepresentable(currency: string, exponent: number): AppError {
  const unit = stripeUnit(currency)
  const smallest = (unit.step * 10 ** exponent) / 10 ** unit.decimals
  const text = exponent === 0 ? String(smallest) : (smallest / 10 ** exponent).toFixed(exponent)
  return validationFailed([
    {
      field: 'amount',
      message: `must be a multiple of ${text} ${currency.toUpperCase()} to be paid through Stripe (its rule for the currency)`,
    },
  ])
}
