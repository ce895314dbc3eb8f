import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { pino } from 'pino'
import { loadConfig, type Config } from '../../src/config/config.js'
import { currencyExponent } from '../../src/domain/currencies.js'
import { cliCommands } from '../../src/wiring/cli.js'
import { createHttpApp } from '../../src/wiring/http.js'
import { createRuntime, type Runtime } from '../../src/wiring/runtime.js'
import { startWorkers } from '../../src/wiring/workers.js'
import type { Clock } from '../../src/ports/clock.js'
import type { RequestTimeout } from '../../src/http/deps.js'
import type { PasswordHasher } from '../../src/ports/password-hasher.js'
import type { PaymentProvider } from '../../src/ports/payment-provider.js'
import { FakeClock } from './fake-clock.js'
import { leaseEmptySchema } from './postgres.js'

export type TestDb = 'sqlite' | 'postgres'

/**
 * The database test apps run on unless a test says otherwise: `TEST_DB=postgres` (set by the `postgres`
 * vitest project, vitest.config.ts) selects PostgreSQL at TEST_DATABASE_URL, anything else in-memory SQLite.
 */
export const TEST_DB: TestDb = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite'

export interface TestMerchant {
  readonly id: string
  readonly apiKey: string
  readonly apiKeyId: string
  readonly webhookSecret: string
}

export interface TestApp {
  readonly app: FastifyInstance
  readonly rt: Runtime
  readonly config: Config
  /** The fake clock the app reads (unused when built with `realClock`). */
  readonly clock: FakeClock
  /** Runs the clock-driven sweeps (expiry, hold lifetime) now, as the worker would on its next tick. */
  sweep(): Promise<void>
  /** Creates a merchant through the same use case the CLI uses. */
  merchant(name?: string, defaultService?: string): Promise<TestMerchant>
  /** Listens on 127.0.0.1 on a free port (for tests over real sockets); resolves to the port. */
  listen(): Promise<number>
  close(): Promise<void>
}

/**
 * The real app with a fake clock: the same buildApp production uses, over in-memory SQLite or, on PostgreSQL,
 * over a schema of its own with no rows (emptied by close() for the file's next app), so every app starts as empty as
 * an in-memory database.
 * An explicit `DATABASE_URL` in `env` is used as it is.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  opts: {
    clock?: FakeClock
    logger?: pino.Logger
    db?: TestDb
    /** The system clock instead of the fake one (webhook tests: receivers check webhook-timestamp against real time). */
    realClock?: boolean
    /** Run the real webhook dispatcher (off by default: most tests never send webhooks). */
    webhooks?: boolean
    /** The HTTP server's request timeout instead of the production one (30 s, checked every 5 s). */
    requestTimeout?: RequestTimeout
    /** The acquirer instead of the sandbox's (to record its calls). */
    provider?: PaymentProvider
    /** The dashboard's password hasher instead of scrypt at OWASP's parameters (tests that sign in many times). */
    passwords?: PasswordHasher
  } = {},
): Promise<TestApp> {
  const db = opts.db ?? TEST_DB
  const schema = db === 'postgres' && env.DATABASE_URL === undefined ? await leaseEmptySchema() : undefined
  const config = loadConfig(
    {
      DATABASE_URL: schema?.url ?? 'sqlite::memory:',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://pay.test',
      KEY_CACHE_TTL: '0',
      ...env,
    },
    currencyExponent,
  )
  const clock = opts.clock ?? new FakeClock()
  let rt: Runtime
  try {
    rt = await createRuntime(config, {
      ...(opts.realClock === true ? {} : { clock: clock as Clock }),
      logger: opts.logger ?? pino({ level: 'silent' }),
      ...(opts.provider !== undefined && { provider: opts.provider }),
      ...(opts.passwords !== undefined && { passwords: opts.passwords }),
    })
  } catch (err) {
    await schema?.drop()
    throw err
  }
  const app = await createHttpApp(rt, {
    defaultMetrics: false,
    ...(opts.requestTimeout !== undefined && { requestTimeout: opts.requestTimeout }),
  })
  await app.ready()
  const commands = cliCommands(rt)
  // the real worker, with a timer too slow to fire in a test: tests drive it with sweep() and the fake clock
  const workers = startWorkers(rt, 3_600_000, { webhooks: opts.webhooks ?? false })
  return {
    app,
    rt,
    config,
    clock,
    async merchant(name = 'Test Shop', defaultService) {
      const m = await commands.createMerchant({ name, defaultService })
      return { id: m.merchant.id, apiKey: m.apiKey, apiKeyId: m.apiKeyId, webhookSecret: m.webhookSecret }
    },
    sweep: () => workers.tick(),
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' })
      return (app.server.address() as AddressInfo).port
    },
    async close() {
      await rt.close() // the app, the workers, then what the runtime opened: production's shutdown order
      await schema?.release()
    },
  }
}
