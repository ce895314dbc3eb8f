/**
 * The services mini-language: SERVICES names them (and the currencies each takes), SERVICE_LIMITS and SERVICE_FEES
 * give each its amount bounds and fee. Every problem is reported under the variable it is in.
 */
import type { Report } from './env.js'

export interface ServiceConfig {
  readonly name: string
  /** Enabled currencies this service accepts; undefined = every enabled currency. */
  readonly currencies: readonly string[] | undefined
  /** Amount bounds in major units as exact decimal text (docs/api.md#limits: defaults 1.00 and 1000000.00). */
  readonly min: string
  readonly max: string
  /** Fee as exact decimal texts; undefined = no fee. */
  readonly fee: { readonly percent: string; readonly fixed: string } | undefined
}

const DECIMAL = /^[0-9]+(\.[0-9]+)?$/
const SERVICE_NAME = /^[a-z][a-z0-9_-]{0,31}$/

/** The services of SERVICES with their SERVICE_LIMITS and SERVICE_FEES, each bound checked against its currencies. */
export function readServices(
  text: { services: string; limits: string | undefined; fees: string | undefined },
  currencies: readonly string[],
  exponentOf: (code: string) => number | undefined,
  bad: Report,
): ServiceConfig[] {
  const services = parseServices(text.services, currencies, bad)
  applyServiceLimits(text.limits, services, bad)
  applyServiceFees(text.fees, services, bad)
  checkLimitsHold(services, currencies, exponentOf, bad)
  return services
}

/** The comma-separated entries of a variable, trimmed, the empty ones dropped. */
const entries = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

/** `SERVICES=card,sbp:RUB`: the service names, each optionally with the currencies it takes (`+`-separated). */
function parseServices(text: string, currencies: readonly string[], bad: Report): ServiceConfig[] {
  const out: ServiceConfig[] = []
  for (const part of entries(text)) {
    const [name = '', list] = part.split(':')
    if (!SERVICE_NAME.test(name)) {
      bad('SERVICES', `"${name}" is not a service name (lowercase letters, digits, - and _)`)
      continue
    }
    if (out.some((s) => s.name === name)) bad('SERVICES', `"${name}" is listed twice`)
    let only: string[] | undefined
    if (list !== undefined) {
      only = list.split('+').map((c) => c.trim().toUpperCase())
      for (const c of only)
        if (!currencies.includes(c)) bad('SERVICES', `${name}: currency "${c}" is not in CURRENCIES`)
    }
    out.push({ name, currencies: only, min: '1.00', max: '1000000.00', fee: undefined })
  }
  if (out.length === 0) bad('SERVICES', 'must name at least one service')
  return out
}

/** `SERVICE_LIMITS=card=1.00..1000000.00,sbp=10..600000`: per-service min..max in major units. */
function applyServiceLimits(text: string | undefined, services: ServiceConfig[], bad: Report): void {
  if (text === undefined) return
  const seen = new Set<string>()
  for (const part of entries(text)) {
    const m = /^([a-z][a-z0-9_-]*)=([0-9.]+)\.\.([0-9.]+)$/.exec(part)
    const idx = m ? services.findIndex((s) => s.name === m[1]) : -1
    const svc = services[idx]
    if (!m || svc === undefined || !DECIMAL.test(m[2] ?? '') || !DECIMAL.test(m[3] ?? '')) {
      bad(
        'SERVICE_LIMITS',
        `"${part}" must be <service>=<min>..<max> for a service in SERVICES, e.g. card=1.00..1000000.00`,
      )
      continue
    }
    if (listedTwice('SERVICE_LIMITS', svc.name, seen, bad)) continue
    const [min = '', max = ''] = [m[2], m[3]]
    if (Number(min) > Number(max)) bad('SERVICE_LIMITS', `${svc.name}: min exceeds max`)
    services[idx] = { ...svc, min, max }
  }
}

/** `SERVICE_FEES=card=2.5%,sbp=0.4%+1.00`: percent and/or fixed fee per service (docs/configuration.md#variables). */
function applyServiceFees(text: string | undefined, services: ServiceConfig[], bad: Report): void {
  if (text === undefined) return
  const seen = new Set<string>()
  for (const part of entries(text)) {
    // <percent>% | <percent>%+<fixed> | <fixed>
    const m = /^([a-z][a-z0-9_-]*)=(?:([0-9]+(?:\.[0-9]+)?)%(?:\+([0-9]+(?:\.[0-9]+)?))?|([0-9]+(?:\.[0-9]+)?))$/.exec(
      part,
    )
    const idx = m ? services.findIndex((s) => s.name === m[1]) : -1
    const svc = services[idx]
    if (!m || svc === undefined || (m[2] !== undefined && Number(m[2]) > 100)) {
      bad(
        'SERVICE_FEES',
        `"${part}" must be <service>=<percent>% and/or +<fixed> for a service in SERVICES, e.g. card=2.5% or sbp=0.4%+1.00`,
      )
      continue
    }
    if (listedTwice('SERVICE_FEES', svc.name, seen, bad)) continue
    services[idx] = { ...svc, fee: { percent: m[2] ?? '0', fixed: m[3] ?? m[4] ?? '0' } }
  }
}

/** A second entry for one service is refused, as in SERVICES: which of the two was meant is not guessed. */
function listedTwice(name: string, service: string, seen: Set<string>, bad: Report): boolean {
  if (seen.has(service)) {
    bad(name, `"${service}" is listed twice`)
    return true
  }
  seen.add(service)
  return false
}

/** The largest amount, in minor units: the domain's MAX_MINOR (15 digits, exact as a JSON number in major units). */
const MAX_MINOR = 10n ** 15n - 1n

/**
 * Each service's bounds, in minor units of each currency it takes: the max must be an amount the service can hold
 * exactly (a larger one would fail every create at request time), and some amount must lie between min and max
 * once they are rounded inwards to the currency's minor unit (1.20..1.80 leaves no JPY amount).
 */
function checkLimitsHold(
  services: readonly ServiceConfig[],
  currencies: readonly string[],
  exponentOf: (code: string) => number | undefined,
  bad: Report,
): void {
  for (const svc of services) {
    if (!DECIMAL.test(svc.min) || !DECIMAL.test(svc.max)) continue // reported by applyServiceLimits
    for (const currency of svc.currencies ?? currencies) {
      const exponent = exponentOf(currency)
      if (exponent === undefined) continue // reported with CURRENCIES
      const min = minorUnits(svc.min, exponent, 'ceil')
      const max = minorUnits(svc.max, exponent, 'floor')
      if (max > MAX_MINOR) {
        const largest =
          exponent === 0
            ? `${MAX_MINOR}`
            : `${MAX_MINOR / 10n ** BigInt(exponent)}.${`${MAX_MINOR % 10n ** BigInt(exponent)}`.padStart(exponent, '0')}`
        bad(
          'SERVICE_LIMITS',
          `${svc.name}: max ${svc.max} is more than an amount in ${currency} can be (at most ${largest})`,
        )
      } else if (min > max) {
        bad(
          'SERVICE_LIMITS',
          `${svc.name}: no ${currency} amount lies within ${svc.min}..${svc.max} (${currency} has ${exponent} decimal places)`,
        )
      }
    }
  }
}

/** A decimal text in minor units, rounded inwards: `ceil` for a minimum, `floor` for a maximum. */
function minorUnits(text: string, exponent: number, round: 'ceil' | 'floor'): bigint {
  const [whole = '0', frac = ''] = text.split('.')
  const minor = BigInt(whole + frac.slice(0, exponent).padEnd(exponent, '0'))
  return round === 'ceil' && /[1-9]/.test(frac.slice(exponent)) ? minor + 1n : minor
}
