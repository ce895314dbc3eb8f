import { currencyExponent } from './currencies.js'
import { asMinor, computeFee, limitToMinor, type Fee, type Minor } from './money.js'

/** What a payment service accepts: currencies, amount bounds in major units, and its fee. */
export interface ServiceRules {
  readonly name: string
  /** Currencies this service accepts; undefined = every enabled currency. */
  readonly currencies: readonly string[] | undefined
  readonly min: string
  readonly max: string
  readonly fee: Fee | undefined
}

/** The currencies and services enabled on this instance (from configuration). */
export interface Catalog {
  readonly currencies: readonly string[]
  readonly services: readonly ServiceRules[]
}

export function findService(catalog: Catalog, name: string): ServiceRules | undefined {
  return catalog.services.find((s) => s.name === name)
}

/** The exponent of an enabled currency, or undefined when it is not enabled here. */
export function enabledExponent(catalog: Catalog, currency: string): number | undefined {
  return catalog.currencies.includes(currency) ? currencyExponent(currency) : undefined
}

export function supportsCurrency(service: ServiceRules, currency: string): boolean {
  return service.currencies === undefined || service.currencies.includes(currency)
}

/** The service's bounds in minor units of a currency: the minimum rounded up, the maximum down. */
export function amountBounds(service: ServiceRules, exponent: number): { min: Minor; max: Minor } {
  return { min: limitToMinor(service.min, exponent, 'ceil'), max: limitToMinor(service.max, exponent, 'floor') }
}

/**
 * The fee the service charges on `amount` as configured now (docs/api.md#fees-and-credited, SERVICE_FEES): rounded half up to the
 * currency's minor unit, never more than the amount; 0 for a service with no fee, or one no longer configured.
 */
export function serviceFee(catalog: Catalog, service: string, currency: string, amount: Minor): Minor {
  const fee = findService(catalog, service)?.fee
  const exponent = currencyExponent(currency)
  return fee === undefined || exponent === undefined ? asMinor(0) : computeFee(amount, exponent, fee)
}
