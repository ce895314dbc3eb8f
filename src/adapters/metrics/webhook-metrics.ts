import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { WebhookMetrics } from '../../ports/webhook-metrics.js'
import { scrapeRead } from './scrape-read.js'

export interface WebhookQueueStats {
  readonly pending: number
  readonly oldestDueAgeSeconds: number
}

/**
 * The webhook dispatcher's Prometheus metrics, in a registry of their own (one per runtime; /metrics exposes
 * it beside the HTTP registry). The queue gauges are read from the database on each scrape, so they are true
 * for every instance sharing it.
 */
export function createWebhookMetrics(opts: { queueStats: () => Promise<WebhookQueueStats> }): {
  metrics: WebhookMetrics
  registry: Registry
} {
  const registry = new Registry()
  const attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook HTTP attempts by result: success (2xx), http_error (other answers), timeout, refused (address guard), network_error',
    labelNames: ['result'] as const,
    registers: [registry],
  })
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries that reached a final state, by outcome (succeeded, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Webhook attempt latency, from the start of the request to the answer or the failure',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers: [registry],
  })

  // one database read serves both gauges of a scrape
  const stats = scrapeRead(opts.queueStats)
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries pending (waiting for a retry, due, or in flight)',
    registers: [registry],
    async collect() {
      const s = await stats()
      if (s !== undefined) this.set(s.pending)
    },
  })
  new Gauge({
    name: 'webhook_oldest_due_age_seconds',
    help: 'How long the oldest due webhook delivery has been waiting to be sent (0 when none is due)',
    registers: [registry],
    async collect() {
      const s = await stats()
      if (s !== undefined) this.set(s.oldestDueAgeSeconds)
    },
  })

  return {
    registry,
    metrics: {
      attempt(result, latencyMs) {
        attempts.inc({ result })
        latency.observe(latencyMs / 1000)
      },
      delivery(outcome) {
        deliveries.inc({ outcome })
      },
    },
  }
}
