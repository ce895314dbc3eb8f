/**
 * The runtime of one process: the logger, the store, the adapters bound into the use cases' dependencies, and the
 * one `close()` that owns the shutdown order. The HTTP app and the workers run over it (./http.ts, ./workers.ts).
 */
import { pino, type Logger } from 'pino'
import type { Registry } from 'prom-client'
import { openPostgresStore } from '../adapters/db/postgres/postgres-store.js'
import { openSqliteStore } from '../adapters/db/sqlite/sqlite-store.js'
import { createProviderMetrics } from '../adapters/metrics/provider-metrics.js'
import type { ProviderMetrics } from '../ports/provider-metrics.js'
import { createWebhookMetrics } from '../adapters/metrics/webhook-metrics.js'
import { buildProviders } from './providers.js'
import { systemClock } from '../adapters/system/clock.js'
import { createEventSignal } from '../adapters/system/event-signal.js'
import { LogWriter } from '../adapters/system/log-writer.js'
import { createScryptHasher } from '../adapters/system/password-hasher.js'
import { nodeSecrets } from '../adapters/system/secrets.js'
import { createUuidV7 } from '../adapters/system/uuid-v7.js'
import { hmacSigner } from '../adapters/webhook-http/sign.js'
import { createUndiciTransport } from '../adapters/webhook-http/undici-transport.js'
import type { AppDeps } from '../app/deps.js'
import { webhookQueueStats } from '../app/dispatch-webhooks.js'
import type { Config } from '../config/config.js'
import type { Clock } from '../ports/clock.js'
import type { PasswordHasher } from '../ports/password-hasher.js'
import type { PaymentProvider } from '../ports/payment-provider.js'
import type { Store } from '../ports/store.js'
import { bindUseCases, type UseCases } from './use-cases.js'

/** What runs over a runtime and stops before it closes, in this order: the HTTP apps, then the workers. */
export type Stage = 'http' | 'workers'

export interface Runtime {
  readonly config: Config
  readonly store: Store
  readonly deps: AppDeps
  readonly useCases: UseCases
  readonly logger: Logger
  /** The workers' metrics (webhooks), exposed by /metrics beside the HTTP ones. */
  readonly metricsRegistry: Registry
  /** Acquirer notifications and reconciliation (docs/providers.md#metrics), in metricsRegistry. */
  readonly providerMetrics: ProviderMetrics
  /**
   * Has `close()` run `stop` at its stage (createHttpApp and startWorkers call this). Returns the undoing, for a part
   * stopped on its own before.
   */
  stopOnClose(stage: Stage, stop: () => Promise<void>): () => void
  /**
   * Stops what runs over the runtime and closes what it opened, in the one shutdown order: the HTTP apps stop
   * accepting and finish the requests under way; the workers finish the delivery attempts under way (aborting them
   * after their grace) and give their claims back; then the outgoing connections, the database, the log.
   * Calling it again returns the same promise.
   */
  close(): Promise<void>
}

export interface RuntimeOverrides {
  readonly clock?: Clock
  readonly logger?: Logger
  /** The acquirer instead of the built-in sandbox (tests record its calls). */
  readonly provider?: PaymentProvider
  /** A cheaper password hasher (tests that sign in many times); production's is scrypt at OWASP's parameters. */
  readonly passwords?: PasswordHasher
}

/**
 * The service's logger. Asynchronous writes to standard output: a synchronous write per log line blocks the event
 * loop on every request. Lines that arrive while a write is under way all go into the next one (log-writer.ts: why
 * not pino.destination); shutdown flushes what is queued, and an exit writes what is left synchronously. (Tests
 * give a destination of their own.)
 */
export function createLogger(config: Config, destination: pino.DestinationStream = new LogWriter(1)): Logger {
  return pino(
    {
      level: config.logLevel,
      // Defence in depth: no code logs these, and if one ever did they would still not reach the log.
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'headers["x-api-key"]',
          'req.headers.authorization',
          'req.headers.cookie',
          'apiKey',
          'api_key',
          'secret',
          'webhookSecret',
          'password',
          'totpSecret',
          'token',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  )
}

export async function openStore(config: Config, logger?: Logger): Promise<Store> {
  if (config.database.kind === 'sqlite') {
    return openSqliteStore({ path: config.database.path, synchronous: config.sqliteSynchronous })
  }
  return openPostgresStore({
    url: config.database.url,
    poolSize: config.databasePoolSize,
    onPreparedStatementsOff: (err) =>
      logger?.warn(
        { error: err.message },
        'PostgreSQL lost a prepared statement (a pooler in transaction mode?): the hot lookups and inserts use plain queries from now on',
      ),
  })
}

/** Opens and migrates the store, binds the adapters into the use cases' dependencies and the use cases to them. */
export async function createRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const logger = overrides.logger ?? createLogger(config)
  const store = await openStore(config, logger)
  await store.migrate()
  const clock = overrides.clock ?? systemClock
  const webhookMetrics = createWebhookMetrics({ queueStats: () => webhookQueueStats({ store, clock }) })
  const deps: AppDeps = {
    store,
    clock,
    newId: createUuidV7(() => clock.now().getTime()),
    secrets: nodeSecrets,
    passwords: overrides.passwords ?? createScryptHasher(),
    providers: await buildProviders(config.providers, overrides.provider),
    acquirers: {
      timeoutMs: config.providers.timeoutMs,
      reconcileAfter: config.providers.reconcileAfter,
      reconcileMaxInterval: config.providers.reconcileMaxInterval,
    },
    catalog: { currencies: config.currencies, services: config.services },
    publicUrl: config.publicUrl,
    callbackAllowHttp: config.callbackAllowHttp,
    lifetime: { default: config.invoiceLifetime, min: config.invoiceMinLifetime, max: config.invoiceMaxLifetime },
    holdLifetime: config.holdLifetime,
    webhookSecretGrace: config.webhookSecretGrace,
    eventSignal: createEventSignal(),
    webhooks: {
      retrySchedule: config.webhookRetrySchedule,
      timeoutMs: config.webhookTimeout * 1000,
      allowPrivate: config.webhookAllowPrivate,
      transport: createUndiciTransport({
        allowPrivate: config.webhookAllowPrivate,
        connectTimeoutMs: config.webhookTimeout * 1000,
      }),
      signer: hmacSigner,
      metrics: webhookMetrics.metrics,
      random: Math.random,
    },
  }
  const running: Record<Stage, Set<() => Promise<void>>> = { http: new Set(), workers: new Set() }
  const stopAll = async (stage: Stage): Promise<void> => {
    await Promise.all([...running[stage]].map((stop) => stop()))
  }
  let closing: Promise<void> | undefined
  return {
    config,
    store,
    deps,
    useCases: bindUseCases(deps, { keyCacheTtl: config.keyCacheTtl }),
    logger,
    metricsRegistry: webhookMetrics.registry,
    providerMetrics: createProviderMetrics(webhookMetrics.registry, {
      now: () => clock.now(),
      dueStats: async () => {
        const now = clock.now()
        const { due, oldestDueAt } = await store.attempts.dueStats(now)
        return {
          due,
          oldestDueAgeSeconds: oldestDueAt === null ? 0 : Math.max(0, (now.getTime() - oldestDueAt.getTime()) / 1000),
        }
      },
    }),
    stopOnClose(stage, stop) {
      running[stage].add(stop)
      return () => running[stage].delete(stop)
    },
    close: () =>
      (closing ??= (async () => {
        await stopAll('http')
        await stopAll('workers')
        await deps.webhooks.transport.close()
        await store.close()
        await new Promise<void>((resolve) => logger.flush(() => resolve()))
      })()),
  }
}
