/**
 * Configuration: read from the environment once at start, validated whole, frozen, passed down.
 * The only module that reads `process.env` (it is handed in by the entry point). Imports only domain/ rules.
 * The services mini-language is in ./services.ts, the addresses and URLs in ./addresses.ts.
 */
import { checkHost, database, publicUrl, redisUrl, trustProxy, type DatabaseConfig } from './addresses.js'
import { envReader, type Env } from './env.js'
import { readProviders, type ProvidersConfig } from './providers.js'
import { readServices, type ServiceConfig } from './services.js'

export type { ServiceConfig } from './services.js'
export type { ProvidersConfig, ProviderName } from './providers.js'
export type { EvmConfig, EvmServiceConfig } from './evm.js'

export interface Config {
  readonly nodeEnv: string
  readonly isProduction: boolean
  readonly port: number
  readonly host: string
  readonly publicUrl: string
  readonly database: DatabaseConfig
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
  /** GETINFO_FAST_PATH: a plain getInfo answered before the framework (docs/performance.md#getinfos-fast-path). */
  readonly getInfoFastPath: boolean
  /** CREATE_FAST_PATH: a plain create answered before the framework (docs/performance.md#creates-fast-path). */
  readonly createFastPath: boolean
  readonly sandbox: boolean
  readonly sqliteSynchronous: 'full' | 'normal'
  readonly redisUrl: string | undefined
  /** Which provider serves each service, their credentials (docs/providers.md#configuration). */
  readonly providers: ProvidersConfig
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`)
    this.name = 'ConfigError'
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** The longest delay WEBHOOK_RETRY_SCHEDULE may give: 30 days. */
const MAX_RETRY_DELAY_S = 2_592_000

/** Reads and validates every variable; throws one ConfigError naming each bad one. */
export function loadConfig(
  env: Env,
  exponentOf: (code: string) => number | undefined = () => 2,
  /** `evmFactoryOptional`: the command deploys the factory (`invoice-service evm deploy-factory`). */
  opts: { readonly evmFactoryOptional?: boolean } = {},
): Config {
  const isCurrency = (code: string): boolean => exponentOf(code) !== undefined
  const problems: string[] = []
  const bad = (name: string, message: string): void => {
    problems.push(`${name}: ${message}`)
  }
  const reader = envReader(env, bad)
  const { raw, int, bool, oneOf } = reader

  // as node's own tooling reads it, whatever its case: `PRODUCTION` is production (no demo merchant, the warnings)
  const nodeEnv = (raw('NODE_ENV') ?? 'development').toLowerCase()
  const port = int('PORT', 8080, 0, 65535)
  const host = raw('HOST') ?? '127.0.0.1'
  checkHost(host, bad)
  const url = publicUrl(raw('PUBLIC_URL') ?? `http://localhost:${port}`, bad)
  const db = database(raw('DATABASE_URL') ?? 'sqlite:./data/invoice-service.db', bad)

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

  const services = readServices(
    { services: raw('SERVICES') ?? 'card,sbp', limits: raw('SERVICE_LIMITS'), fees: raw('SERVICE_FEES') },
    currencies,
    exponentOf,
    bad,
  )

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
    publicUrl: url,
    database: db,
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
    getInfoFastPath: bool('GETINFO_FAST_PATH', true),
    createFastPath: bool('CREATE_FAST_PATH', true),
    sandbox: bool('SANDBOX', true),
    sqliteSynchronous: oneOf('SQLITE_SYNCHRONOUS', 'full', ['full', 'normal'] as const),
    redisUrl: redisUrl(raw('REDIS_URL'), bad),
    providers: readProviders(reader, services, bad, {
      currencies,
      evmFactoryOptional: opts.evmFactoryOptional ?? false,
    }),
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return deepFreeze(config)
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}
