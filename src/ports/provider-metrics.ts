/** How a notification ended, for the notifications counter (docs/providers.md#metrics). */
export type NotificationResult = 'accepted' | 'refused' | 'unknown'

/** Observations of acquirer notifications; the adapter records them as Prometheus metrics. */
export interface ProviderMetrics {
  /** A notification arrived at `POST /providers/{provider}/notifications` and was accepted, refused or not ours. */
  notification(provider: string, result: NotificationResult): void
}
