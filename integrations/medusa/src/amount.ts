import { MathBN } from '@medusajs/framework/utils'
import type { BigNumberInput } from '@medusajs/framework/types'

/** Decimal places of a currency's minor unit (2 for EUR, 0 for JPY), as the service counts them. */
export function minorUnitDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
}

/**
 * Medusa's amount (major units: a number, a decimal string or a BigNumber) as the decimal string the service takes
 * (`"12.50"`), without going through a float. More decimals than the currency has are rounded half up.
 */
export function toDecimal(amount: BigNumberInput, currency: string): string {
  return MathBN.convert(amount).toFixed(minorUnitDigits(currency))
}
