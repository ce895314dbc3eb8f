import type { DeliveryStatus } from '../domain/delivery.js'

/** How one attempt ended, for the attempts counter: `success` (2xx), `http_error` (any other answer) or no answer. */
export type AttemptResult = 'success' | 'http_error' | 'timeout' | 'refused' | 'network_error'

/** Observations of the webhook dispatcher; the adapter records them as Prometheus metrics. */
export interface WebhookMetrics {
  /** One HTTP attempt ended. */
  attempt(result: AttemptResult, latencyMs: number): void
  /** A delivery reached a final state (succeeded, or failed after the schedule or a 410). */
  delivery(outcome: Exclude<DeliveryStatus, 'pending'>): void
}
