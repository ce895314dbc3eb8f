import { Counter, Gauge, type Registry } from 'prom-client'
import { scrapeRead } from './scrape-read.js'

/**
 * The evm provider's metrics (docs/stablecoins.md#metrics), in the workers' registry: failed detector rounds and
 * sweeps of this instance, and the sweeps due and failing, read from the database on each scrape.
 */
export function createEvmMetrics(
  registry: Registry,
  opts: { sweepStats: () => Promise<{ due: number; failing: number }> },
): { detectorFailure(service: string): void; sweepFailure(): void } {
  const detector = new Counter({
    name: 'evm_detector_failures_total',
    help: 'Rounds of the stablecoin detector that failed (RPC or database errors), retried with backoff',
    labelNames: ['service'] as const,
    registers: [registry],
  })
  const sweeps = new Counter({
    name: 'evm_sweep_failures_total',
    help: 'Sweeps of paid deposits to payout addresses that failed and will be retried',
    registers: [registry],
  })
  const stats = scrapeRead(opts.sweepStats)
  new Gauge({
    name: 'evm_sweeps_due',
    help: 'Paid deposits waiting to be swept to their payout address',
    registers: [registry],
    async collect() {
      const s = await stats()
      if (s !== undefined) this.set(s.due)
    },
  })
  new Gauge({
    name: 'evm_sweeps_failing',
    help: 'Sweeps due whose last attempt failed',
    registers: [registry],
    async collect() {
      const s = await stats()
      if (s !== undefined) this.set(s.failing)
    },
  })
  return { detectorFailure: (service) => detector.inc({ service }), sweepFailure: () => sweeps.inc() }
}
