import type { Catalog } from '../domain/catalog.js'
import type { NewId } from '../domain/ids.js'
import type { Clock } from '../ports/clock.js'
import type { EventSignal } from '../ports/event-signal.js'
import type { ProviderRegistry } from '../ports/payment-provider.js'
import type { PasswordHasher } from '../ports/password-hasher.js'
import type { Secrets } from '../ports/secrets.js'
import type { Store } from '../ports/store.js'
import type { WebhookMetrics } from '../ports/webhook-metrics.js'
import type { WebhookSigner, WebhookTransport } from '../ports/webhook-transport.js'

/** Outgoing webhooks (docs/webhooks.md#delivery, docs/configuration.md#variables). */
export interface WebhookSettings {
  /** WEBHOOK_RETRY_SCHEDULE: seconds before each attempt (domain/webhook-policy.ts). */
  readonly retrySchedule: readonly number[]
  /** WEBHOOK_TIMEOUT in milliseconds: the whole attempt. */
  readonly timeoutMs: number
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private targets are allowed (development, tests). */
  readonly allowPrivate: boolean
  readonly transport: WebhookTransport
  readonly signer: WebhookSigner
  readonly metrics: WebhookMetrics
  /** Uniform in [0, 1): the retry jitter. */
  readonly random: () => number
}

export interface AcquirerSettings {
  /** PROVIDER_TIMEOUT in milliseconds: one call to an acquirer. */
  readonly timeoutMs: number
  /** RECONCILE_AFTER: seconds without news before an attempt is asked about, doubling per check. */
  readonly reconcileAfter: number
  /** RECONCILE_MAX_INTERVAL: the longest wait between two checks, in seconds. */
  readonly reconcileMaxInterval: number
}

/** What use cases are given by the composition root; each use case takes the subset it needs. */
export interface AppDeps {
  readonly store: Store
  readonly clock: Clock
  readonly newId: NewId
  readonly secrets: Secrets
  /** Dashboard passwords (docs/dashboard.md#passwords). */
  readonly passwords: PasswordHasher
  /** The provider of each service (docs/providers.md#configuration). */
  readonly providers: ProviderRegistry
  /** Acquirer payments (docs/providers.md#reconciliation, docs/configuration.md#variables). */
  readonly acquirers: AcquirerSettings
  readonly catalog: Catalog
  readonly publicUrl: string
  readonly callbackAllowHttp: boolean
  readonly lifetime: { readonly default: number; readonly min: number; readonly max: number }
  /** HOLD_LIFETIME in seconds: a hold not settled within it is released and fails (docs/api.md#statuses). */
  readonly holdLifetime: number
  /** Seconds a previous webhook secret keeps signing after a rotation. */
  readonly webhookSecretGrace: number
  /** Rung after a commit that wrote outbox events: wakes the webhook dispatcher at once. */
  readonly eventSignal: EventSignal
  readonly webhooks: WebhookSettings
}
