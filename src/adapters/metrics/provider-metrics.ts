import { Counter, Gauge, type Registry } from 'prom-client'
import type { ProviderMetrics, ProviderNotificationStats } from '../../ports/provider-metrics.js'
import { scrapeRead } from './scrape-read.js'

/**
 * Acquirer metrics (docs/providers.md#metrics), in the workers' registry: notifications by provider and result, and
 * reconciliation's lag, read from the database on each scrape (true for every instance sharing it).
 */
export function createProviderMetrics(
  registry: Registry,
  opts: { dueStats: () => Promise<{ due: number; oldestDueAgeSeconds: number }>; now: () => Date },
): ProviderMetrics {
  const notifications = new Counter({
    name: 'provider_notifications_total',
    help: 'Acquirer notifications by provider and result: accepted (verified), refused (failed verification), unknown (verified, not a payment of ours)',
    labelNames: ['provider', 'result'] as const,
    registers: [registry],
  })
  // one database read serves both gauges of a scrape
  const stats = scrapeRead(opts.dueStats)
  new Gauge({
    name: 'reconcile_due',
    help: 'Acquirer payments due a reconciliation check now',
    registers: [registry],
    async collect() {
      const s = await stats()
      if (s !== undefined) this.set(s.due)
    },
  })
  new Gauge({
    name: 'reconcile_lag_seconds',
    help: 'How long the most overdue reconciliation check has been waiting (0 when none is due)',
    registers: [registry],
    async collect() {
      const s = await stats()
      if (s !== undefined) this.set(s.oldestDueAgeSeconds)
    },
  })
  // the console's figures (docs/dashboard.md#operator-console), kept beside the counter: prom-client's are read asynchronously
  const seen = new Map<string, { -readonly [K in keyof ProviderNotificationStats]: ProviderNotificationStats[K] }>()
  return {
    notification: (provider, result) => {
      notifications.inc({ provider, result })
      let s = seen.get(provider)
      if (s === undefined) {
        s = { provider, accepted: 0, refused: 0, unknown: 0, lastAcceptedAt: null }
        seen.set(provider, s)
      }
      s[result] += 1
      if (result === 'accepted') s.lastAcceptedAt = opts.now()
    },
    snapshot: () => [...seen.values()].map((s) => ({ ...s })),
  }
}
