import type { FastifyBaseLogger } from 'fastify'
import type { Registry } from 'prom-client'
import type { ProviderMetrics } from '../ports/provider-metrics.js'
import type { RateLimiter } from '../ports/rate-limiter.js'
import type { UseCases } from '../wiring/use-cases.js'
import type { HttpMetrics } from './plugins/metrics.js'

// The use cases the HTTP shell calls, bound to their dependencies by the composition root: their types are those
// of the bound functions (src/wiring/use-cases/), so go-to-definition on `deps.invoices.create` leads to the binding.
export type InvoiceUseCases = UseCases['invoices']
/** The buyer-facing payment flow. */
export type PaymentUseCases = UseCases['payments']
/** The merchant's webhook endpoints (docs/webhooks.md#delivery-log). */
export type WebhookUseCases = UseCases['webhooks']
/** Refunds (docs/refunds.md). */
export type RefundUseCases = UseCases['refunds']

export interface HttpOptions {
  readonly logger: FastifyBaseLogger
  readonly publicUrl: string
  readonly bodyLimit: number
  /** Collect Node's default process metrics (off in tests that build many apps). */
  readonly defaultMetrics: boolean
  /** Further registries /metrics exposes beside the HTTP one (the workers' webhook metrics). */
  readonly metricsRegistries?: readonly Registry[]
  /** TRUST_PROXY (config.ts): whose X-Forwarded-For names the client; false: the connection's peer is the client. */
  readonly trustProxy?: false | number | readonly string[]
  /** How long a request may take to arrive in full, and how often that is checked (default 30 s, every 5 s). */
  readonly requestTimeout?: RequestTimeout
  /** GETINFO_FAST_PATH (default true): a plain getInfo answered before the framework (get-info-fast-path.ts). */
  readonly getInfoFastPath?: boolean
  /** CREATE_FAST_PATH (default true): a plain create answered before the framework (create-fast-path.ts). */
  readonly createFastPath?: boolean
}

export interface RequestTimeout {
  readonly ms: number
  readonly checkEveryMs: number
}

export interface HttpDeps {
  readonly publicUrl: string
  readonly authenticate: UseCases['accounts']['authenticate']
  /** The merchants and keys the admin API manages (docs/admin-api.md). */
  readonly accounts: UseCases['accounts']
  /** Admin tokens (docs/admin-api.md#authentication). */
  readonly admin: UseCases['admin']
  /** Dashboard users and their sessions (docs/dashboard.md). */
  readonly users: UseCases['users']
  /** The operator console's reads across every merchant (docs/dashboard.md#operator-console). */
  readonly console: UseCases['console']
  /** Per-key and failed-authentication limits (docs/api.md#limits). */
  readonly rateLimiter: RateLimiter
  readonly invoices: InvoiceUseCases
  readonly payments: PaymentUseCases
  readonly webhooks: WebhookUseCases
  readonly refunds: RefundUseCases
  /** SANDBOX: the simulate endpoint and the page's test controls exist only when true. */
  readonly sandbox: boolean
  /** The configured acquirers that notify us: `POST /providers/{name}/notifications` exists for each. */
  readonly notifiers: readonly string[]
  /** Acquirer notifications by provider and result (docs/providers.md#metrics). */
  readonly providerMetrics: ProviderMetrics
  readonly ping: () => Promise<void>
  readonly now: () => Date
  readonly qrPng: (text: string) => Buffer
  readonly qrDataUri: (text: string) => string
  readonly metrics: HttpMetrics
}
