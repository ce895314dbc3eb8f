/**
 * Money is integer minor units end to end (docs/architecture.md#money-is-integer-minor-units). Amounts are parsed from decimal text
 * — the string a client sent, or a JSON number's shortest round-trip text — never by multiplying floats.
 */
export type Minor = number & { readonly __brand: 'Minor' }

const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/

/**
 * The largest minor amount we accept: 15 digits. It stays an exact integer in JS, in SQLite and in a PostgreSQL
 * bigint, and — what caps it below Number.MAX_SAFE_INTEGER — as a JSON number in major units (getInfo's `amount`
 * and `credited`, `toMajorNumber`) it is still the amount: a double holds any 15 significant digits, while
 * 70368744177664.01 (16) comes back as 70368744177664.02.
 */
export const MAX_MINOR = 999_999_999_999_999

export type ParseFailure = 'format' | 'too_many_decimals' | 'too_large'

/**
 * Parses `^[0-9]+(\.[0-9]+)?$` into minor units of a currency with `exponent` decimals.
 * Trailing zeros past the exponent are still refused ("100.500" for RUB): docs/api.md#create-an-invoice.
 */
export function parseAmount(
  text: string,
  exponent: number,
): { ok: true; minor: Minor } | { ok: false; reason: ParseFailure } {
  const m = DECIMAL.exec(text)
  if (m === null) return { ok: false, reason: 'format' }
  const whole = m[1] ?? ''
  const frac = m[2] ?? ''
  if (frac.length > exponent) return { ok: false, reason: 'too_many_decimals' }
  const digits = (whole + frac.padEnd(exponent, '0')).replace(/^0+(?=\d)/, '')
  if (digits.length > 15) return { ok: false, reason: 'too_large' } // MAX_MINOR's 15 digits
  return { ok: true, minor: Number(digits) as Minor }
}

/** The text of a JSON number as a client would have written it in decimal, or undefined for NaN, ±Infinity or exponents. */
export function numberText(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined
  const text = String(value)
  return /e/i.test(text) ? undefined : text
}

/**
 * An amount as a client sent it (docs/api.md#create-an-invoice): a JSON number (checked as written, `text`, when
 * known: a double cannot tell 100.5 from 100.500) or a decimal string; at most `exponent` decimals; greater than 0.
 * The messages name what is wrong for the field `amount`.
 */
export function parseAmountInput(
  amount: number | string,
  text: string | undefined,
  exponent: number,
  currency: string,
): { ok: true; minor: Minor } | { ok: false; message: string } {
  const written = typeof amount === 'number' ? (text ?? numberText(amount)) : amount
  if (written === undefined || (typeof amount === 'number' && (amount < 0 || !/^[0-9.]+$/.test(written))))
    return { ok: false, message: 'must be a positive decimal number without exponent' }
  const parsed = parseAmount(written, exponent)
  if (!parsed.ok) {
    if (parsed.reason === 'too_many_decimals')
      return { ok: false, message: `must have at most ${exponent} decimal places for ${currency}` }
    if (parsed.reason === 'too_large') return { ok: false, message: 'is too large' }
    return {
      ok: false,
      message: 'must be a positive decimal number such as 100 or "100.50" (no sign, spaces or exponent)',
    }
  }
  if (parsed.minor <= 0) return { ok: false, message: 'must be greater than 0' }
  return parsed
}

/** Formats minor units with exactly `exponent` decimals: 10050 @2 → "100.50", 5 @0 → "5". */
export function formatAmount(minor: Minor, exponent: number): string {
  const negative = minor < 0
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0')
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
  return negative ? `-${text}` : text
}

/**
 * Minor units as a JSON number in major units (getInfo's `amount` and `credited`): 10050 @2 → 100.5.
 * Goes through the decimal text, so the number is the closest double to the exact decimal.
 */
export function toMajorNumber(minor: Minor, exponent: number): number {
  return Number(formatAmount(minor, exponent))
}

export function asMinor(n: number): Minor {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer amount: ${n}`)
  return n as Minor
}

/**
 * Converts a decimal limit given in major units ("1.00") to minor units of a currency,
 * rounding towards the inside of the range (`ceil` for a minimum, `floor` for a maximum).
 */
export function limitToMinor(text: string, exponent: number, round: 'ceil' | 'floor'): Minor {
  const m = DECIMAL.exec(text)
  if (m === null) throw new RangeError(`not a decimal: ${text}`)
  const whole = m[1] ?? ''
  const frac = m[2] ?? ''
  const kept = frac.slice(0, exponent).padEnd(exponent, '0')
  const dropped = frac.slice(exponent)
  let minor = Number(whole + kept)
  if (round === 'ceil' && /[1-9]/.test(dropped)) minor += 1
  return asMinor(minor)
}

/** A per-service fee: a percentage of the amount and/or a fixed part, both exact decimal texts. */
export interface Fee {
  /** Percent as a decimal string, e.g. "2.5" for 2.5 %. */
  readonly percent: string
  /** Fixed part in major units of the invoice's currency, as a decimal string, e.g. "1.00". */
  readonly fixed: string
}

/** An exact decimal text as a fraction numerator / 10^scale. */
function decimalParts(text: string): { numer: bigint; scale: number } {
  const [whole = '0', frac = ''] = text.split('.')
  return { numer: BigInt(whole + frac), scale: frac.length }
}

/**
 * The fee on `amount`: `amount × percent / 100 + fixed`, computed exactly with bigint on the decimal texts and
 * rounded once, half up, to the currency's minor unit (docs/api.md#fees-and-credited). Never more than the amount, so `credited`
 * never goes below 0.
 */
export function computeFee(amount: Minor, exponent: number, fee: Fee): Minor {
  const p = decimalParts(fee.percent)
  const f = decimalParts(fee.fixed)
  // Everything in minor units over the common denominator 100 × 10^p.scale × 10^f.scale.
  const pScale = 10n ** BigInt(p.scale)
  const fScale = 10n ** BigInt(f.scale)
  const denom = 100n * pScale * fScale
  const percentPart = BigInt(amount) * p.numer * fScale
  const fixedPart = f.numer * 10n ** BigInt(exponent) * 100n * pScale
  const numer = percentPart + fixedPart
  let total = numer / denom
  if ((numer % denom) * 2n >= denom) total += 1n // half up
  return asMinor(Number(total > BigInt(amount) ? BigInt(amount) : total))
}
