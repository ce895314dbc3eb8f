/** The HTTP app over a runtime: the use cases and adapters the Fastify shell is given. */
import type { FastifyInstance } from 'fastify'
import { createMemoryRateLimiter } from '../adapters/rate-limit/memory-rate-limiter.js'
import { createRedisRateLimiter } from '../adapters/rate-limit/redis-rate-limiter.js'
import { buildApp } from '../http/build-app.js'
import type { RequestTimeout } from '../http/deps.js'
import { qrDataUri, qrPng } from '../http/qr.js'
import type { RateLimiter } from '../ports/rate-limiter.js'
import type { Runtime } from './runtime.js'

export const BODY_LIMIT = 16 * 1024

/**
 * The HTTP app over a runtime (not listening); tests call this with `sqlite::memory:` and a fake clock.
 * `rt.close()` closes it first; closed on its own before, it is left out.
 */
export async function createHttpApp(
  rt: Runtime,
  opts: { defaultMetrics?: boolean; requestTimeout?: RequestTimeout } = {},
): Promise<FastifyInstance> {
  const { useCases } = rt
  // the configured acquirers (not the sandbox): each has its notification route, and the page its Pay button
  const acquirers = [...new Set(Object.values(rt.config.providers.bindings))].filter((p) => p !== 'sandbox')
  const rateLimiter = await createRateLimiter(rt)
  const app = await buildApp(
    {
      publicUrl: rt.config.publicUrl,
      authenticate: useCases.accounts.authenticate,
      accounts: useCases.accounts,
      admin: useCases.admin,
      users: useCases.users,
      console: useCases.console,
      rateLimiter,
      invoices: useCases.invoices,
      payments: useCases.payments,
      webhooks: useCases.webhooks,
      refunds: useCases.refunds,
      sandbox: rt.config.sandbox,
      notifiers: acquirers,
      providerMetrics: rt.providerMetrics,
      ping: () => rt.store.ping(),
      now: () => rt.deps.clock.now(),
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
      getInfoFastPath: rt.config.getInfoFastPath,
      createFastPath: rt.config.createFastPath,
      ...(opts.requestTimeout !== undefined && { requestTimeout: opts.requestTimeout }),
    },
  )
  const forget = rt.stopOnClose('http', () => app.close())
  app.addHook('onClose', async () => {
    forget()
    await rateLimiter.close()
  })
  return app
}

/**
 * Per instance in memory; shared through Redis when REDIS_URL is set, falling back to memory while it is down.
 * The start waits up to 2 s for Redis, so that a healthy start shares its limits from the first request.
 * Opened by the HTTP app, its only user: the CLI never connects to Redis.
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
