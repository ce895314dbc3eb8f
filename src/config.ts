/**
 * Configuration: read from the environment once at start, validated whole, frozen, passed down.
 * The only module that reads `process.env` (it is handed in by the entry point). Imports nothing.
 */

export interface ServiceConfig {
  readonly name: string
  /** Enabled currencies this service accepts; undefined = every enabled currency. */
  readonly currencies: readonly string[] | undefined
  /** Amount bounds in major units as exact decimal text (API.md B8: defaults 1.00 and 1000000.00). */
  readonly min: string
  readonly max: string
  /** Fee as exact decimal texts; undefined = no fee. */
  readonly fee: { readonly percent: string; readonly fixed: string } | undefined
}

export interface Config {
  readonly nodeEnv: string
  readonly isProduction: boolean
  readonly port: number
  readonly host: string
  readonly publicUrl: string
  readonly database:
    { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string }
  readonly databasePoolSize: number
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  readonly currencies: readonly string[]
  readonly services: readonly ServiceConfig[]
  readonly invoiceLifetime: number
  readonly invoiceMinLifetime: number
  readonly invoiceMaxLifetime: number
  readonly holdLifetime: number
  readonly webhookTimeout: number
  readonly webhookRetrySchedule: readonly number[]
  readonly webhookAllowPrivate: boolean
  readonly webhookSecretGrace: number
  /** Webhook deliveries in flight at once per instance (each of a different invoice). */
  readonly webhookConcurrency: number
  /** Webhook deliveries of one merchant in flight at once per instance (its share of webhookConcurrency). */
  readonly webhookMerchantConcurrency: number
  readonly callbackAllowHttp: boolean
  /**
   * TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client (addresses or CIDR ranges), or how many
   * hops of it to trust; false: none, the client is the connection's peer. Limits per client address use it.
   */
  readonly trustProxy: false | number | readonly string[]
  readonly rateLimitRps: number
  readonly rateLimitBurst: number
  readonly authFailLimit: number
  readonly keyCacheTtl: number
  readonly sandbox: boolean
  readonly sqliteSynchronous: 'full' | 'normal'
  readonly redisUrl: string | undefined
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`)
    this.name = 'ConfigError'
  }
}

type Env = Readonly<Record<string, string | undefined>>

const DECIMAL = /^[0-9]+(\.[0-9]+)?$/
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const SERVICE_NAME = /^[a-z][a-z0-9_-]{0,31}$/

/** Reads and validates every variable; throws one ConfigError naming each bad one. */
export function loadConfig(env: Env, exponentOf: (code: string) => number | undefined = () => 2): Config {
  const isCurrency = (code: string): boolean => exponentOf(code) !== undefined
  const problems: string[] = []
  const bad = (name: string, message: string): void => {
    problems.push(`${name}: ${message}`)
  }
  const raw = (name: string): string | undefined => {
    const v = env[name]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const int = (name: string, def: number, min: number, max: number): number => {
    const v = raw(name)
    if (v === undefined) return def
    if (!/^[0-9]+$/.test(v) || Number(v) < min || Number(v) > max) {
      bad(name, `must be a whole number from ${min} to ${max}, got "${v}"`)
      return def
    }
    return Number(v)
  }
  const bool = (name: string, def: boolean): boolean => {
    const v = raw(name)?.toLowerCase()
    if (v === undefined) return def
    if (['true', '1', 'yes', 'on'].includes(v)) return true
    if (['false', '0', 'no', 'off'].includes(v)) return false
    bad(name, `must be true or false, got "${v}"`)
    return def
  }
  const oneOf = <T extends string>(name: string, def: T, allowed: readonly T[]): T => {
    const v = raw(name)?.toLowerCase()
    if (v === undefined) return def
    if ((allowed as readonly string[]).includes(v)) return v as T
    bad(name, `must be one of ${allowed.join(', ')}, got "${v}"`)
    return def
  }

  // as node's own tooling reads it, whatever its case: `PRODUCTION` is production (no demo merchant, the warnings)
  const nodeEnv = (raw('NODE_ENV') ?? 'development').toLowerCase()
  const port = int('PORT', 8080, 0, 65535)
  const host = raw('HOST') ?? '127.0.0.1'
  // an IP address or a host name (letters, digits, hyphens, dots); anything else fails at listen() with a DNS error
  if (
    !/^[0-9A-Fa-f:.]+$/.test(host) &&
    !/^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/.test(
      host,
    )
  ) {
    bad('HOST', `must be an IP address or a host name, got "${host}"`)
  }

  let publicUrl = raw('PUBLIC_URL') ?? `http://localhost:${port}`
  try {
    const u = new URL(publicUrl)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') bad('PUBLIC_URL', 'must be an http(s) URL')
    // the raw text: a bare `?` or `#` leaves URL's search and hash empty, and would end up inside every pay_url
    if (/[?#]/.test(publicUrl)) bad('PUBLIC_URL', 'must not have a query or fragment')
    publicUrl = publicUrl.replace(/\/+$/, '')
    // an empty path segment: the pages' links start with the path, and one that starts with `//` (a typo such as
    // https://shop.example//payments) reads as another host (`//payments/pay/…`), in links and in redirects
    if (new URL(publicUrl).pathname.includes('//')) bad('PUBLIC_URL', 'must not have an empty path segment (`//`)')
  } catch {
    bad('PUBLIC_URL', `must be an absolute URL, got "${publicUrl}"`)
  }

  const dbUrl = raw('DATABASE_URL') ?? 'sqlite:./data/invoice-service.db'
  let database: Config['database'] = { kind: 'sqlite', path: './data/invoice-service.db' }
  if (dbUrl.startsWith('sqlite:')) {
    const path = dbUrl.slice('sqlite:'.length)
    if (path === '')
      bad('DATABASE_URL', 'sqlite: needs a path, e.g. sqlite:./data/invoice-service.db or sqlite::memory:')
    else database = { kind: 'sqlite', path }
  } else if (/^postgres(ql)?:\/\//.test(dbUrl)) {
    database = { kind: 'postgres', url: dbUrl }
    // parsed now, so that a typo stops the start here and not as "Invalid URL" from the driver; never quoted back
    // (it may hold a password)
    if (!postgresUrlParses(dbUrl))
      bad(
        'DATABASE_URL',
        'is not a valid URL: postgres://user:password@host:5432/database (percent-encode special characters)',
      )
  } else {
    bad('DATABASE_URL', 'must start with sqlite: or postgres://')
  }

  const logLevel = oneOf('LOG_LEVEL', 'info', LOG_LEVELS)

  const currencies = [
    ...new Set(
      (raw('CURRENCIES') ?? 'RUB,USD,EUR')
        .split(',')
        .map((c) => c.trim().toUpperCase())
        .filter((c) => c !== ''),
    ),
  ]
  for (const c of currencies) if (!isCurrency(c)) bad('CURRENCIES', `"${c}" is not an ISO 4217 currency code`)
  if (currencies.length === 0) bad('CURRENCIES', 'must name at least one currency')

  const services = parseServices(raw('SERVICES') ?? 'card,sbp', currencies, bad)
  applyServiceLimits(raw('SERVICE_LIMITS'), services, bad)
  applyServiceFees(raw('SERVICE_FEES'), services, bad)
  checkLimitsHold(services, currencies, exponentOf, bad)

  const invoiceMinLifetime = int('INVOICE_MIN_LIFETIME', 300, 1, 31_536_000)
  const invoiceMaxLifetime = int('INVOICE_MAX_LIFETIME', 2_592_000, 1, 31_536_000)
  const invoiceLifetime = int('INVOICE_LIFETIME', 3600, 1, 31_536_000)
  if (invoiceMinLifetime > invoiceMaxLifetime) bad('INVOICE_MIN_LIFETIME', 'must not exceed INVOICE_MAX_LIFETIME')
  if (invoiceLifetime < invoiceMinLifetime || invoiceLifetime > invoiceMaxLifetime) {
    bad(
      'INVOICE_LIFETIME',
      `must be within INVOICE_MIN_LIFETIME..INVOICE_MAX_LIFETIME (${invoiceMinLifetime}..${invoiceMaxLifetime})`,
    )
  }

  const scheduleText = raw('WEBHOOK_RETRY_SCHEDULE') ?? '0,5,300,1800,7200,18000,36000,36000'
  const webhookRetrySchedule = scheduleText.split(',').map((s) => s.trim())
  if (webhookRetrySchedule.length === 0 || webhookRetrySchedule.some((s) => !/^[0-9]+(\.[0-9]+)?$/.test(s))) {
    bad('WEBHOOK_RETRY_SCHEDULE', 'must be a comma-separated list of seconds, e.g. 0,5,300')
  } else if (webhookRetrySchedule.some((s) => Number(s) > MAX_RETRY_DELAY_S)) {
    // far larger ones made no retry time at all (an invalid date): the delivery stayed pending, never sent
    bad('WEBHOOK_RETRY_SCHEDULE', `each delay must be at most ${MAX_RETRY_DELAY_S} seconds (30 days)`)
  }

  const webhookConcurrency = int('WEBHOOK_CONCURRENCY', 80, 1, 10_000)

  const config: Config = {
    nodeEnv,
    isProduction: nodeEnv === 'production',
    port,
    host,
    publicUrl,
    database,
    databasePoolSize: int('DATABASE_POOL_SIZE', 10, 1, 1000),
    logLevel,
    currencies,
    services,
    invoiceLifetime,
    invoiceMinLifetime,
    invoiceMaxLifetime,
    holdLifetime: int('HOLD_LIFETIME', 604_800, 1, 31_536_000),
    webhookTimeout: int('WEBHOOK_TIMEOUT', 15, 1, 600),
    webhookRetrySchedule: webhookRetrySchedule.map(Number),
    webhookAllowPrivate: bool('WEBHOOK_ALLOW_PRIVATE', false),
    webhookSecretGrace: int('WEBHOOK_SECRET_GRACE', 86_400, 0, 31_536_000),
    webhookConcurrency,
    webhookMerchantConcurrency: int('WEBHOOK_MERCHANT_CONCURRENCY', Math.ceil(webhookConcurrency / 5), 1, 10_000),
    callbackAllowHttp: bool('CALLBACK_ALLOW_HTTP', false),
    trustProxy: trustProxy(raw('TRUST_PROXY'), bad),
    rateLimitRps: int('RATE_LIMIT_RPS', 100, 1, 1_000_000),
    rateLimitBurst: int('RATE_LIMIT_BURST', 200, 1, 1_000_000),
    authFailLimit: int('AUTH_FAIL_LIMIT', 20, 1, 1_000_000),
    keyCacheTtl: int('KEY_CACHE_TTL', 2, 0, 60),
    sandbox: bool('SANDBOX', true),
    sqliteSynchronous: oneOf('SQLITE_SYNCHRONOUS', 'full', ['full', 'normal'] as const),
    redisUrl: redisUrl(raw('REDIS_URL'), bad),
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return deepFreeze(config)
}

function parseServices(
  text: string,
  currencies: readonly string[],
  bad: (n: string, m: string) => void,
): ServiceConfig[] {
  const out: ServiceConfig[] = []
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
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
function applyServiceLimits(
  text: string | undefined,
  services: ServiceConfig[],
  bad: (n: string, m: string) => void,
): void {
  if (text === undefined) return
  const seen = new Set<string>()
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
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

/**
 * Whether pg can read `url` as a connection string: as a URL, after pg's own fix-ups (spaces and stray `%` encoded;
 * `user@/db?host=/socket/dir`, a socket instead of a host, read with a stand-in host).
 */
function postgresUrlParses(url: string): boolean {
  try {
    const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url
    return URL.canParse(text) || URL.canParse(text.replace('@/', '@socket/'))
  } catch {
    return false // encodeURI: a lone surrogate
  }
}

/**
 * TRUST_PROXY: a hop count (1–10), or a comma-separated list of addresses and CIDR ranges (IPv4 or IPv6) or the
 * names loopback, linklocal and uniquelocal. `true` (trust any sender's X-Forwarded-For) is not offered: a client
 * reaching the service directly could then pick the address it is limited as.
 */
function trustProxy(text: string | undefined, bad: (n: string, m: string) => void): false | number | readonly string[] {
  if (text === undefined || text === 'false') return false
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text)
    if (hops >= 1 && hops <= 10) return hops
    bad('TRUST_PROXY', `a hop count must be from 1 to 10, got "${text}"`)
    return false
  }
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const wrong = entries.filter((e) => !isProxyEntry(e))
  if (entries.length === 0 || wrong.length > 0) {
    bad(
      'TRUST_PROXY',
      `must be a hop count or proxy addresses/CIDR ranges such as 10.0.0.0/8,loopback; not "${wrong[0] ?? text}"`,
    )
    return false
  }
  return entries
}

/**
 * One TRUST_PROXY entry as the proxy check (proxy-addr) will take it: a name it knows, or an IPv4/IPv6 address with
 * an optional prefix length from 1 to the address's bits (a /0 would trust every sender, which is not offered, as
 * `true` is not). Checked here, so that `999.1.1.1` or `10.0.0.0/99` is a configuration error naming the
 * variable, not a crash of the HTTP layer at start.
 */
function isProxyEntry(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true
  const [address = '', prefix, extra] = entry.split('/')
  const bits = IPV4.test(address) ? 32 : isIpv6(address) ? 128 : 0
  if (bits === 0 || extra !== undefined) return false
  return prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= bits)
}

/** Dotted decimal, each part 0–255 without a leading zero (`010.0.0.1` would be read as octal by some tools). */
const IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$/

/** An IPv6 address (an IPv4-mapped one too), as the WHATWG URL parser reads a bracketed host. */
function isIpv6(address: string): boolean {
  if (!address.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(address)) return false
  try {
    new URL(`http://[${address}]/`)
    return true
  } catch {
    return false
  }
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
  bad: (n: string, m: string) => void,
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

/** `SERVICE_FEES=card=2.5%,sbp=0.4%+1.00`: percent and/or fixed fee per service (API.md E). */
function applyServiceFees(
  text: string | undefined,
  services: ServiceConfig[],
  bad: (n: string, m: string) => void,
): void {
  if (text === undefined) return
  const seen = new Set<string>()
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
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
function listedTwice(name: string, service: string, seen: Set<string>, bad: (n: string, m: string) => void): boolean {
  if (seen.has(service)) {
    bad(name, `"${service}" is listed twice`)
    return true
  }
  seen.add(service)
  return false
}

/** The longest delay WEBHOOK_RETRY_SCHEDULE may give: 30 days. */
const MAX_RETRY_DELAY_S = 2_592_000

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

/** `REDIS_URL=redis://[user:password@]host:port[/db]` (or rediss:// for TLS); undefined: limits per instance. */
function redisUrl(text: string | undefined, bad: (name: string, why: string) => void): string | undefined {
  if (text === undefined) return undefined
  try {
    const u = new URL(text)
    if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') bad('REDIS_URL', 'must start with redis:// or rediss://')
    else if (u.hostname === '') bad('REDIS_URL', 'must name a host, e.g. redis://127.0.0.1:6379')
  } catch {
    // never echo the value: it may hold a password
    bad('REDIS_URL', 'must be a URL such as redis://127.0.0.1:6379')
  }
  return text
}
