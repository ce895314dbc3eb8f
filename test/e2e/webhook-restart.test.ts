/**
 * Deliveries are rows (docs/architecture.md#retries-are-rows-not-sleeps): a stop with deliveries pending — waiting for a retry, never tried,
 * or in flight — loses none of them; the next start on the same database sends them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { pino } from 'pino'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/config.js'
import { currencyExponent } from '../../src/domain/currencies.js'
import type { DeliveryId } from '../../src/domain/ids.js'
import { cliCommands } from '../../src/wiring/cli.js'
import { createHttpApp } from '../../src/wiring/http.js'
import { createRuntime, type Runtime } from '../../src/wiring/runtime.js'
import { startWorkers } from '../../src/wiring/workers.js'
import { api, expectStatus } from '../helpers/api.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'

const dir = mkdtempSync(join(tmpdir(), 'webhook-restart-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Instance {
  rt: Runtime
  app: FastifyInstance
  workers: ReturnType<typeof startWorkers>
}

const configFor = (file: string) =>
  loadConfig(
    {
      DATABASE_URL: `sqlite:${join(dir, file)}`,
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://pay.test',
      CALLBACK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,0.5,0.5,0.5',
    },
    currencyExponent,
  )

async function start(file: string, graceMs = 5000): Promise<Instance> {
  const rt = await createRuntime(configFor(file), { logger: pino({ level: 'silent' }) })
  const app = await createHttpApp(rt, { defaultMetrics: false })
  return { rt, app, workers: startWorkers(rt, 3_600_000, { webhookShutdownGraceMs: graceMs }) }
}

/** The shutdown SIGTERM runs: the app, the workers (after their grace), then what the runtime opened. */
async function stop(i: Instance): Promise<void> {
  await i.rt.close()
}

let rx: Receiver
afterEach(async () => rx?.close())

async function paidInvoice(i: Instance, merchant: { apiKey: string }, orderId: string): Promise<string> {
  const id = await api(i)
    .as(merchant)
    .newInvoice({ order_id: orderId, amount: 5, currency: 'RUB', callback_url: rx.url })
  expectStatus(await api(i).simulate(id, { outcome: 'paid' }), 200)
  return id
}

describe('webhook deliveries across a restart', () => {
  it('when the service stops with a delivery waiting for its retry and one never tried, then the next start delivers both', async () => {
    rx = await startReceiver({ respond: () => 503 })
    const first = await start('pending.db')
    const m = await cliCommands(first.rt).createMerchant({ name: 'Restart' })
    rx.secrets = [m.webhookSecret]
    const retried = await paidInvoice(first, m, 'R-1')
    await rx.waitFor(1) // the first attempt was answered 503; the retry is due in 0.5 s
    await first.workers.stop()
    const untried = await paidInvoice(first, m, 'R-2') // committed while no dispatcher runs
    await stop(first)
    expect(rx.received).toHaveLength(1)

    rx.respond = () => 200
    const second = await start('pending.db')
    try {
      const hooks = await rx.waitFor(3)
      expect(
        hooks
          .slice(1)
          .map((h) => h.json.data['id'])
          .sort(),
      ).toEqual([retried, untried].sort())
      expect(hooks.every((h) => h.verifiedWith.length === 1)).toBe(true)
      expect(hooks[1]!.headers['webhook-id']).not.toBe(hooks[2]!.headers['webhook-id'])
      const statuses = async () =>
        (await second.rt.store.deliveries.list({ merchantId: m.merchant.id, limit: 10 })).map((d) => d.status)
      await expect.poll(statuses).toEqual(['succeeded', 'succeeded'])
      const log = await second.rt.store.deliveries.list({ merchantId: m.merchant.id, limit: 10 })
      const byInvoice = new Map(log.map((d) => [d.invoiceId as string, d]))
      expect(byInvoice.get(retried)!.eventId).toBe(rx.received[0]!.headers['webhook-id'])
      const done = await second.rt.store.deliveries.findById(byInvoice.get(retried)!.id)
      expect(done!.attempts.map((a) => a.statusCode)).toEqual([503, 200])
    } finally {
      await stop(second)
    }
  })

  it('when the service stops during an attempt, then after the grace the attempt is aborted uncounted, and the next start sends it again', async () => {
    rx = await startReceiver({ respond: (_h, k) => (k === 1 ? 'hang' : 200) })
    const first = await start('inflight.db', 100)
    const m = await cliCommands(first.rt).createMerchant({ name: 'Restart' })
    rx.secrets = [m.webhookSecret]
    await paidInvoice(first, m, 'I-1')
    await rx.waitFor(1)
    const [d] = await first.rt.store.deliveries.list({ merchantId: m.merchant.id, limit: 1 })
    const stopping = Date.now()
    await stop(first)
    expect(Date.now() - stopping).toBeLessThan(2000) // not the 15 s webhook timeout

    const second = await start('inflight.db')
    try {
      const released = await second.rt.store.deliveries.findById(d!.id as DeliveryId)
      expect(released).toMatchObject({ attempts: [] }) // the aborted attempt is not counted
      await rx.waitFor(2)
      await expect
        .poll(async () => (await second.rt.store.deliveries.findById(d!.id as DeliveryId))?.status)
        .toBe('succeeded')
    } finally {
      await stop(second)
    }
  })
})
