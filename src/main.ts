/**
 * Composition root: the only module that wires adapters to use cases (ARCHITECTURE.md 2).
 * `invoice-service serve` (what `npm start` runs) and every CLI command start here.
 */
import { pino, type Logger } from 'pino'
import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import type { PaymentProvider } from './ports/payment-provider.js'
import { openPostgresStore } from './adapters/db/postgres.js'
import { openSqliteStore } from './adapters/db/sqlite.js'
import { createMemoryRateLimiter } from './adapters/rate-limit/memory-rate-limiter.js'
import { createRedisRateLimiter } from './adapters/rate-limit/redis-rate-limiter.js'
import { sandboxProvider } from './adapters/sandbox-provider/sandbox-provider.js'
import { systemClock } from './adapters/system/clock.js'
import { nodeSecrets } from './adapters/system/secrets.js'
import { createUuidV7 } from './adapters/system/uuid-v7.js'
import { createEventSignal } from './adapters/system/event-signal.js'
import { LogWriter } from './adapters/system/log-writer.js'
import { createWebhookMetrics } from './adapters/metrics/webhook-metrics.js'
import { hmacSigner } from './adapters/webhook-http/sign.js'
import { createUndiciTransport } from './adapters/webhook-http/undici-transport.js'
import { createApiKeyAuthenticator } from './app/authenticate-api-key.js'
import { createInvoice } from './app/create-invoice.js'
import type { AppDeps } from './app/deps.js'
import { ensureDemoMerchant } from './app/ensure-demo-merchant.js'
import { getInvoice, getInvoiceInfo } from './app/get-invoice.js'
import { listInvoices } from './app/list-invoices.js'
import { cancelInvoice } from './app/cancel-invoice.js'
import { captureInvoice } from './app/capture-invoice.js'
import { getPaymentView } from './app/get-payment-view.js'
import { simulatePayment } from './app/simulate-payment.js'
import { expireDueInvoices, failStaleHolds } from './app/sweep-invoices.js'
import { startSweeper, type Sweeper } from './worker/sweeper.js'
import { dispatchCycle, sendClaimed, webhookQueueStats } from './app/dispatch-webhooks.js'
import { listDeliveries } from './app/list-deliveries.js'
import { redeliver } from './app/redeliver.js'
import { releaseOrphanedClaims } from './app/release-orphaned-claims.js'
import { sendTestWebhook } from './app/send-test-webhook.js'
import { startWebhookDispatcher } from './worker/webhook-dispatcher.js'
import { createMerchant } from './app/create-merchant.js'
import { issueApiKey } from './app/issue-api-key.js'
import { listApiKeys } from './app/list-api-keys.js'
import { listMerchants } from './app/list-merchants.js'
import { revokeApiKey } from './app/revoke-api-key.js'
import { rotateWebhookSecret } from './app/rotate-webhook-secret.js'
import { setMerchantStatus } from './app/set-merchant-status.js'
import type { CliCommands } from './cli/run-cli.js'
import { runCli } from './cli/run-cli.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { currencyExponent } from './domain/currencies.js'
import { asMinor, formatAmount } from './domain/money.js'
import type { Clock } from './ports/clock.js'
import type { RateLimiter } from './ports/rate-limiter.js'
import type { Store } from './ports/store.js'
import { buildApp } from './http/build-app.js'
import { qrDataUri, qrPng } from './http/qr.js'
import type { RequestTimeout } from './http/deps.js'

export const BODY_LIMIT = 16 * 1024

export interface Runtime {
  readonly config: Config
  readonly store: Store
  readonly deps: AppDeps
  readonly logger: Logger
  /** The workers' metrics (webhooks), exposed by /metrics beside the HTTP ones. */
  readonly metricsRegistry: Registry
}

export interface RuntimeOverrides {
  readonly clock?: Clock
  readonly logger?: Logger
  /** The acquirer instead of the built-in sandbox (tests record its calls). */
  readonly provider?: PaymentProvider
}

export function createLogger(config: Config): Logger {
  // Asynchronous writes: a synchronous write per log line blocks the event loop on every request. Lines that
  // arrive while a write is under way all go into the next one (log-writer.ts: why not pino.destination);
  // shutdown flushes what is queued, and an exit writes what is left synchronously.
  const destination = new LogWriter(1)
  return pino(
    {
      level: config.logLevel,
      // Defence in depth: no code logs these, and if one ever did they would still not reach the log.
      redact: {
        paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', 'api_key', 'secret', 'webhookSecret'],
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

/** Opens and migrates the store and binds the use cases' dependencies. */
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
    provider: overrides.provider ?? sandboxProvider,
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
  return { config, store, deps, logger, metricsRegistry: webhookMetrics.registry }
}

/** The HTTP app over a runtime; tests call this with `sqlite::memory:` and a fake clock. */
export async function createHttpApp(
  rt: Runtime,
  opts: { defaultMetrics?: boolean; requestTimeout?: RequestTimeout } = {},
): Promise<FastifyInstance> {
  const { deps } = rt
  const rateLimiter = await createRateLimiter(rt)
  const app = await buildApp(
    {
      publicUrl: rt.config.publicUrl,
      authenticate: createApiKeyAuthenticator(deps, rt.config.keyCacheTtl),
      rateLimiter,
      invoices: {
        create: (merchant, input) => createInvoice(deps, merchant, input),
        getInfo: (merchant, query) => getInvoiceInfo(deps, merchant, query),
        get: (merchant, id) => getInvoice(deps, merchant, id),
        list: (merchant, query) => listInvoices(deps, merchant, query),
        findPublic: (id) => deps.store.invoices.findById(id),
        capture: (merchant, id) => captureInvoice(deps, merchant, id),
        cancel: (merchant, id) => cancelInvoice(deps, merchant, id),
      },
      payments: {
        view: (id) => getPaymentView(deps, id),
        simulate: (id, outcome) => simulatePayment(deps, id, outcome),
      },
      webhooks: {
        listDeliveries: (merchant, query) => listDeliveries(deps, merchant, query),
        redeliver: (merchant, id) => redeliver(deps, merchant, id),
        sendTest: (merchant, url) => sendTestWebhook(deps, merchant, url),
      },
      sandbox: rt.config.sandbox,
      ping: () => deps.store.ping(),
      now: () => deps.clock.now(),
      qrPng,
      qrDataUri,
    },
    {
      logger: rt.logger,
      publicUrl: rt.config.publicUrl,
      bodyLimit: BODY_LIMIT,
      defaultMetrics: opts.defaultMetrics ?? true,
      metricsRegistries: [rt.metricsRegistry],
      trustProxy: rt.config.trustProxy,
      ...(opts.requestTimeout !== undefined && { requestTimeout: opts.requestTimeout }),
    },
  )
  app.addHook('onClose', () => rateLimiter.close())
  return app
}

/**
 * Per instance in memory; shared through Redis when REDIS_URL is set, falling back to memory while it is down.
 * The start waits up to 2 s for Redis, so that a healthy start shares its limits from the first request.
 */
async function createRateLimiter(rt: Runtime): Promise<RateLimiter> {
  const limits = {
    rps: rt.config.rateLimitRps,
    burst: rt.config.rateLimitBurst,
    authFailLimit: rt.config.authFailLimit,
  }
  const local = createMemoryRateLimiter({ ...limits, now: () => rt.deps.clock.now().getTime() })
  if (rt.config.redisUrl === undefined) return local
  const shared = createRedisRateLimiter({
    url: rt.config.redisUrl,
    ...limits,
    fallback: local,
    registry: rt.metricsRegistry,
    log: {
      // the message only: never the connection string, which may hold a password
      warn: (message, err) => rt.logger.warn({ error: err instanceof Error ? err.message : String(err) }, message),
      info: (message) => rt.logger.info(message),
    },
  })
  if (!(await shared.connected(2000)))
    rt.logger.warn('Redis is not reachable yet: rate limits are per instance until it is')
  return shared
}

/**
 * The CLI's use cases over a runtime, or over one opened on first use (the binary): `--help` and usage errors
 * are answered without opening, let alone migrating, the database.
 */
export function cliCommands(runtime: Runtime | (() => Promise<Runtime>)): CliCommands {
  const deps = async (): Promise<Runtime['deps']> => (typeof runtime === 'function' ? await runtime() : runtime).deps
  return {
    migrate: async () => (await deps()).store.migrate(),
    createMerchant: async (input) => createMerchant(await deps(), input),
    listMerchants: async () => listMerchants(await deps()),
    setMerchantStatus: async (id, status) => setMerchantStatus(await deps(), id, status),
    issueApiKey: async (merchantId) => issueApiKey(await deps(), merchantId),
    listApiKeys: async (merchantId) => listApiKeys(await deps(), merchantId),
    revokeApiKey: async (keyId) => revokeApiKey(await deps(), keyId),
    rotateWebhookSecret: async (merchantId) => rotateWebhookSecret(await deps(), merchantId),
  }
}

export const SWEEP_BATCH = 200

/** The dispatcher's fallback poll; new events ring the doorbell and retries set a timer, so this is rarely the path. */
export const WEBHOOK_POLL_MS = 1000
/** On shutdown, attempts under way get this long to finish before they are aborted and their claims given back. */
export const WEBHOOK_SHUTDOWN_GRACE_MS = 5000

/**
 * The in-process workers of every instance: the clock-driven transitions (expiry, hold lifetime) and, unless
 * `webhooks: false`, the webhook dispatcher.
 */
export function startWorkers(
  rt: Runtime,
  intervalMs = 500,
  opts: { webhooks?: boolean; webhookShutdownGraceMs?: number } = {},
): Sweeper {
  const { deps } = rt
  const sweeper = startSweeper(
    [
      { name: 'expire-invoices', run: () => expireDueInvoices(deps, SWEEP_BATCH) },
      { name: 'fail-stale-holds', run: () => failStaleHolds(deps, SWEEP_BATCH) },
    ],
    { intervalMs, log: rt.logger, batch: SWEEP_BATCH },
  )
  const dispatcher =
    opts.webhooks === false
      ? undefined
      : startWebhookDispatcher({
          cycle: (input) => dispatchCycle(deps, input),
          send: (claim, signal) => sendClaimed(deps, claim, signal),
          subscribe: (listener) => deps.eventSignal.subscribe(listener),
          now: () => deps.clock.now(),
          concurrency: rt.config.webhookConcurrency,
          merchantConcurrency: rt.config.webhookMerchantConcurrency,
          pollMs: WEBHOOK_POLL_MS,
          log: rt.logger,
        })
  return {
    tick: () => sweeper.tick(),
    async stop() {
      await sweeper.stop()
      await dispatcher?.stop(opts.webhookShutdownGraceMs ?? WEBHOOK_SHUTDOWN_GRACE_MS)
    },
  }
}

/** `serve`: migrate, print the demo merchant on a fresh database, listen, and shut down cleanly on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const rt = await createRuntime(config)
  const app = await createHttpApp(rt)
  if (!config.isProduction) {
    const demo = await ensureDemoMerchant(rt.deps)
    if (demo !== undefined) printDemo(config, demo.merchant.id, demo.apiKey, demo.webhookSecret)
  }
  if (config.database.kind === 'sqlite') {
    // One process per SQLite database: claims found now are a dead process's; send them again at once.
    const released = await releaseOrphanedClaims(rt.deps)
    if (released > 0)
      rt.logger.warn(
        { deliveries: released },
        'webhook claims left by a previous process released; those attempts are sent again',
      )
  }
  if (config.isProduction && config.sandbox) {
    // the default, so that a first start works end to end; in production it is worth a word
    rt.logger.warn(
      "SANDBOX is on: each payment page has test controls, and anyone holding an invoice's payment link can mark it paid; set SANDBOX=false unless this is a test installation",
    )
  }
  await app.listen({ port: config.port, host: config.host })
  const workers = startWorkers(rt)
  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    rt.logger.info({ signal }, 'shutting down')
    void app
      .close()
      .then(() => workers.stop())
      .then(() => rt.deps.webhooks.transport.close())
      .then(() => rt.store.close())
      .then(() => new Promise<void>((resolve) => rt.logger.flush(() => resolve())))
      .finally(() => process.exit(0))
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
}

function printDemo(config: Config, merchantId: string, apiKey: string, webhookSecret: string): void {
  const currency = config.currencies[0] ?? 'RUB'
  // 100 in the currency's own decimals: "100.00" is refused for JPY, which has none
  const exponent = currencyExponent(currency) ?? 2
  const amount = formatAmount(asMinor(100 * 10 ** exponent), exponent)
  const body = JSON.stringify({ order_id: 'demo-1', amount, currency, comment: 'Demo order' })
  const base = config.publicUrl
  process.stdout.write(
    [
      '',
      'Demo merchant created (shown once; this database had no merchants):',
      `  merchant_id:    ${merchantId}`,
      `  api_key:        ${apiKey}`,
      `  webhook_secret: ${webhookSecret}`,
      '',
      'Create an invoice:',
      `  curl -s -X POST ${base}/api/v1/invoices -H 'Content-Type: application/json' -H 'X-Api-Key: ${apiKey}' -d '${body}'`,
      'Read it back:',
      `  curl -s '${base}/api/invoice/getInfo?merchant_id=${merchantId}&order_id=demo-1' -H 'X-Api-Key: ${apiKey}'`,
      '',
      '',
    ].join('\n'),
  )
}

/** Entry point of the `invoice-service` binary. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let config: Config
  try {
    config = loadConfig(env, currencyExponent)
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      return 78 // EX_CONFIG
    }
    throw err
  }
  // `serve` alone (or nothing) starts the server; `serve` with anything more is the CLI's usage error
  if (argv.length === 0 || (argv.length === 1 && argv[0] === 'serve')) {
    await serve(config)
    return -1 // keep running
  }
  let opened: Promise<Runtime> | undefined
  const open = (): Promise<Runtime> => (opened ??= createRuntime(config, { logger: pino({ level: 'silent' }) }))
  try {
    return await runCli(argv, cliCommands(open), {
      out: (s) => process.stdout.write(s),
      err: (s) => process.stderr.write(s),
    })
  } finally {
    // a runtime that failed to open has nothing to close (its error is the one runCli reported or threw)
    if (opened !== undefined)
      await opened.then(
        (rt) => rt.store.close(),
        () => undefined,
      )
  }
}
