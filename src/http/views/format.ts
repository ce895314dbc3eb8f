import { currencyExponent } from '../../domain/currencies.js'
import { formatAmount, type Minor } from '../../domain/money.js'
import type { Lang } from './i18n.js'

/**
 * The amount as people of `lang` write it ("RUB 1,234.50", "1 234,50 ₽"). Intl is given the exact decimal
 * string from `formatAmount` (Intl.NumberFormat v3 formats strings without going through a double), so no
 * float arithmetic ever touches the amount, and the digits are pinned to the currency's exponent.
 */
export function formatMoney(minor: Minor, currency: string, lang: Lang): string {
  const exp = currencyExponent(currency) ?? 2
  const nf = new Intl.NumberFormat(lang, {
    style: 'currency',
    currency,
    minimumFractionDigits: exp,
    maximumFractionDigits: exp,
  })
  // The lib typings of ES2023 only declare format(number | bigint); the runtime (Node 20, every browser since 2023)
  // takes a decimal string exactly.
  return (nf.format as (value: string) => string)(formatAmount(minor, exp))
}

/** "Russian ruble" / "российский рубль"; the code itself when Intl does not know it. */
export function currencyName(currency: string, lang: Lang): string {
  try {
    return new Intl.DisplayNames(lang, { type: 'currency' }).of(currency) ?? currency
  } catch {
    return currency
  }
}

/** A date-time in UTC (the server does not know the buyer's zone; the page script re-renders it in local time). */
export function formatDateTime(at: Date, lang: Lang): string {
  return `${new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at)} UTC`
}

/** Time left as "59:07", "3:04:05" or "2 d 03:04:05"; the page script uses the same format (assets/pay-js.ts). */
export function formatRemaining(ms: number, dayUnit: string): string {
  const total = Math.max(0, Math.floor(ms / 1000))
  const d = Math.floor(total / 86400)
  const h = Math.floor((total % 86400) / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const two = (n: number): string => String(n).padStart(2, '0')
  if (d > 0) return `${d} ${dayUnit} ${two(h)}:${two(m)}:${two(s)}`
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`
}
