/**
 * Which provider serves each service, and each provider's credentials (docs/providers.md#configuration). Checked
 * whole at start: a service bound to a provider without its credentials stops the start naming the variables.
 * Secrets are kept here only to be handed to their adapter; nothing prints them.
 */
import { parseIpRange } from '../domain/ip-range.js'
import type { EnvReader, Report } from './env.js'
import { readEvm, type EvmConfig } from './evm.js'
import type { ServiceConfig } from './services.js'

export const PROVIDER_NAMES = ['sandbox', 'stripe', 'yookassa', 'evm'] as const
export type ProviderName = (typeof PROVIDER_NAMES)[number]

export interface StripeConfig {
  readonly secretKey: string
  readonly webhookSecret: string
  readonly apiUrl: string
  readonly webhookTolerance: number
}

export interface YooKassaConfig {
  readonly shopId: string
  readonly secretKey: string
  readonly apiUrl: string
  /** Sender ranges notifications must come from; undefined: YooKassa's published ones. */
  readonly notificationSources: readonly string[] | undefined
}

export interface ProvidersConfig {
  /** The provider of each service in SERVICES; a service not in SERVICE_PROVIDERS is the sandbox's. */
  readonly bindings: Readonly<Record<string, ProviderName>>
  /** HOLD_SERVICES: services whose acquirer payments are authorised only, captured or cancelled by the merchant. */
  readonly holdServices: readonly string[]
  readonly stripe: StripeConfig | undefined
  readonly yookassa: YooKassaConfig | undefined
  /** Stablecoin services on EVM chains (docs/stablecoins.md#configuration); undefined when no service is bound to evm. */
  readonly evm: EvmConfig | undefined
  /** PROVIDER_TIMEOUT in milliseconds: one call to an acquirer. */
  readonly timeoutMs: number
  /** RECONCILE_AFTER / RECONCILE_MAX_INTERVAL in seconds: when an attempt without news is asked about. */
  readonly reconcileAfter: number
  readonly reconcileMaxInterval: number
}

const entries = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

function httpUrl(name: string, text: string | undefined, def: string, bad: Report): string {
  const value = text ?? def
  try {
    const url = new URL(value)
    if (url.protocol === 'https:' || url.protocol === 'http:') return value.replace(/\/+$/, '')
  } catch {
    // reported below
  }
  // not quoted back: beside the credentials, a value here may be one pasted into the wrong variable
  bad(name, 'must be an http(s) URL')
  return def
}

export function readProviders(
  env: EnvReader,
  services: readonly ServiceConfig[],
  bad: Report,
  opts: { readonly currencies?: readonly string[]; readonly evmFactoryOptional?: boolean } = {},
): ProvidersConfig {
  const bindings: Record<string, ProviderName> = {}
  for (const s of services) bindings[s.name] = 'sandbox'
  const seen = new Set<string>()
  for (const part of entries(env.raw('SERVICE_PROVIDERS'))) {
    const [service = '', provider = '', extra] = part.split('=').map((s) => s.trim())
    if (extra !== undefined || !services.some((s) => s.name === service)) {
      bad('SERVICE_PROVIDERS', `"${part}" must be <service>=<provider> for a service in SERVICES, e.g. card=stripe`)
      continue
    }
    if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) {
      bad('SERVICE_PROVIDERS', `${service}: "${provider}" is not a provider (${PROVIDER_NAMES.join(', ')})`)
      continue
    }
    if (seen.has(service)) bad('SERVICE_PROVIDERS', `"${service}" is listed twice`)
    seen.add(service)
    bindings[service] = provider as ProviderName
  }
  const holdServices = entries(env.raw('HOLD_SERVICES'))
  for (const s of holdServices)
    if (!services.some((svc) => svc.name === s)) bad('HOLD_SERVICES', `"${s}" is not a service in SERVICES`)

  const used = (p: ProviderName): string[] => Object.keys(bindings).filter((s) => bindings[s] === p)
  /**
   * Whether a service is bound to `p`; each of `names` missing is reported. The ones given are still checked by
   * the caller (a missing one throws in the end anyway): the start names every bad variable at once.
   */
  const required = (p: ProviderName, names: readonly string[]): boolean => {
    const users = used(p)
    if (users.length === 0) return false
    for (const n of names)
      if (env.raw(n) === undefined) bad(n, `is required: SERVICE_PROVIDERS binds ${users.join(', ')} to ${p}`)
    return true
  }

  let stripe: StripeConfig | undefined
  if (required('stripe', ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'])) {
    const secretKey = env.raw('STRIPE_SECRET_KEY')
    const webhookSecret = env.raw('STRIPE_WEBHOOK_SECRET')
    // the values are never quoted back: they are secrets
    if (secretKey !== undefined && !/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(secretKey))
      bad('STRIPE_SECRET_KEY', 'must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_…)')
    if (webhookSecret !== undefined && !/^whsec_[A-Za-z0-9_+/=]+$/.test(webhookSecret))
      bad('STRIPE_WEBHOOK_SECRET', "must be the endpoint's signing secret (whsec_…)")
    stripe = {
      secretKey: secretKey ?? '',
      webhookSecret: webhookSecret ?? '',
      apiUrl: httpUrl('STRIPE_API_URL', env.raw('STRIPE_API_URL'), 'https://api.stripe.com', bad),
      webhookTolerance: env.int('STRIPE_WEBHOOK_TOLERANCE', 300, 1, 3600),
    }
  }

  let yookassa: YooKassaConfig | undefined
  if (required('yookassa', ['YOOKASSA_SHOP_ID', 'YOOKASSA_SECRET_KEY'])) {
    const shopId = env.raw('YOOKASSA_SHOP_ID')
    if (shopId !== undefined && !/^[0-9]{1,20}$/.test(shopId)) bad('YOOKASSA_SHOP_ID', 'must be the shop id (digits)')
    const sourcesText = env.raw('YOOKASSA_NOTIFICATION_SOURCES')
    const sources = sourcesText === undefined ? undefined : entries(sourcesText)
    // read by the parser the adapter matches senders with, so what passes here is what it takes; a /0 would let
    // every sender through, and is refused as TRUST_PROXY refuses it
    const wrong = sources?.find((s) => (parseIpRange(s)?.prefix ?? 0) === 0)
    if (sources !== undefined && (sources.length === 0 || wrong !== undefined))
      bad(
        'YOOKASSA_NOTIFICATION_SOURCES',
        `must be addresses or CIDR ranges, e.g. 185.71.76.0/27; not "${wrong ?? ''}"`,
      )
    yookassa = {
      shopId: shopId ?? '',
      secretKey: env.raw('YOOKASSA_SECRET_KEY') ?? '',
      apiUrl: httpUrl('YOOKASSA_API_URL', env.raw('YOOKASSA_API_URL'), 'https://api.yookassa.ru/v3', bad),
      notificationSources: sources,
    }
  }

  const evm = readEvm(env, used('evm'), opts.currencies ?? [], bad, opts.evmFactoryOptional)
  // a deposit address takes what is sent; there is nothing to authorise and capture later
  for (const s of holdServices)
    if (bindings[s] === 'evm') bad('HOLD_SERVICES', `"${s}" is bound to evm, which cannot hold payments`)

  return {
    bindings,
    holdServices,
    stripe,
    yookassa,
    evm,
    timeoutMs: env.int('PROVIDER_TIMEOUT', 10, 1, 120) * 1000,
    reconcileAfter: env.int('RECONCILE_AFTER', 300, 1, 86_400),
    reconcileMaxInterval: env.int('RECONCILE_MAX_INTERVAL', 3600, 1, 604_800),
  }
}
