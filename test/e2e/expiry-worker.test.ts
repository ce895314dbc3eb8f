import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/config.js'
import { currencyExponent } from '../../src/domain/currencies.js'
import { cliCommands } from '../../src/wiring/cli.js'
import { createHttpApp } from '../../src/wiring/http.js'
import { createRuntime } from '../../src/wiring/runtime.js'
import { startWorkers } from '../../src/wiring/workers.js'
import { api } from '../helpers/api.js'
import { FakeClock } from '../helpers/fake-clock.js'

const dir = mkdtempSync(join(tmpdir(), 'invoice-expiry-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const configFor = (file: string) =>
  loadConfig(
    {
      DATABASE_URL: `sqlite:${join(dir, file)}`,
      LOG_LEVEL: 'silent',
      INVOICE_MIN_LIFETIME: '1',
      INVOICE_LIFETIME: '3600',
      PUBLIC_URL: 'http://pay.test',
    },
    currencyExponent,
  )

async function createInvoice(rt: Awaited<ReturnType<typeof createRuntime>>, lifetime: number): Promise<string> {
  const m = await cliCommands(rt).createMerchant({ name: 'Expiry' })
  const app = await createHttpApp(rt, { defaultMetrics: false })
  const id = await api({ app }).as(m).newInvoice({ order_id: 'exp-1', amount: 1, currency: 'RUB', lifetime })
  await app.close()
  return id
}

describe('clock-driven expiry with the real worker', () => {
  it('when an invoice reaches expired_at on the real clock, then its event is written within about a second', async () => {
    const rt = await createRuntime(configFor('live.db'), { logger: pino({ level: 'silent' }) })
    startWorkers(rt, 250) // stopped by rt.close()
    try {
      const id = await createInvoice(rt, 1)
      const expiresAt = (await rt.store.invoices.findById(id as never))!.expiresAt.getTime()
      let eventAt: number | undefined
      while (eventAt === undefined && Date.now() < expiresAt + 3000) {
        await new Promise((r) => setTimeout(r, 50))
        const evs = await rt.store.events.listByInvoice(id as never)
        if (evs.length > 0) eventAt = Date.now()
      }
      expect(eventAt).toBeDefined()
      expect(eventAt! - expiresAt).toBeLessThan(1500)
      expect((await rt.store.events.listByInvoice(id as never)).map((e) => e.type)).toEqual(['invoice.expired'])
    } finally {
      await rt.close()
    }
  })

  it('when the service restarts after an invoice expired while it was down, then the first sweep expires it exactly once', async () => {
    const clock = new FakeClock()
    const first = await createRuntime(configFor('restart.db'), { clock, logger: pino({ level: 'silent' }) })
    const id = await createInvoice(first, 600)
    await first.close()

    clock.advance(3600) // down for an hour
    const second = await createRuntime(configFor('restart.db'), { clock, logger: pino({ level: 'silent' }) })
    const w2 = startWorkers(second, 3_600_000)
    try {
      // overlapping sweeps (as a timer tick and a manual one would) still move it once
      await Promise.all([w2.tick(), w2.tick(), w2.tick()])
      const evs = await second.store.events.listByInvoice(id as never)
      expect(evs.map((e) => e.type)).toEqual(['invoice.expired'])
      expect((await second.store.invoices.findById(id as never))?.status).toBe('expired')
    } finally {
      await second.close()
    }
  })
})
