import type { FastifyInstance } from 'fastify'
import { pino } from 'pino'
import { loadConfig, type Config } from '../../src/config.js'
import { ALL_CURRENCY_CODES } from '../../src/domain/currencies.js'
import { cliCommands, createHttpApp, createRuntime, startWorkers, type Runtime } from '../../src/main.js'
import type { Clock } from '../../src/ports/clock.js'
import { FakeClock } from './fake-clock.js'

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
  readonly clock: FakeClock
  /** Runs the clock-driven sweeps (expiry, hold lifetime) now, as the worker would on its next tick. */
  sweep(): Promise<void>
  /** Creates a merchant through the same use case the CLI uses. */
  merchant(name?: string, defaultService?: string): Promise<TestMerchant>
  close(): Promise<void>
}

/** The real app over in-memory SQLite with a fake clock: the same buildApp production uses. */
export async function buildTestApp(
  env: Record<string, string> = {},
  opts: { clock?: FakeClock; logger?: pino.Logger } = {},
): Promise<TestApp> {
  const config = loadConfig(
    { DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://pay.test', KEY_CACHE_TTL: '0', ...env },
    (c) => ALL_CURRENCY_CODES.includes(c),
  )
  const clock = opts.clock ?? new FakeClock()
  const rt = await createRuntime(config, { clock: clock as Clock, logger: opts.logger ?? pino({ level: 'silent' }) })
  const app = await createHttpApp(rt, { defaultMetrics: false })
  await app.ready()
  const commands = cliCommands(rt)
  // the real worker, with a timer too slow to fire in a test: tests drive it with sweep() and the fake clock
  const workers = startWorkers(rt, 3_600_000)
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
    async close() {
      await workers.stop()
      await app.close()
      await rt.store.close()
    },
  }
}

export const json = (body: unknown): { headers: Record<string, string>; payload: string } => ({
  headers: { 'content-type': 'application/json' },
  payload: JSON.stringify(body),
})
