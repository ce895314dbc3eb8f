/** How a notification ended, for the notifications counter (docs/providers.md#metrics). */
export type NotificationResult = 'accepted' | 'refused' | 'unknown'

/** One provider's notifications as this instance counted them since it started. */
export interface ProviderNotificationStats {
  readonly provider: string
  readonly accepted: number
  readonly refused: number
  readonly unknown: number
  /** When the last accepted one arrived; null when none has. */
  readonly lastAcceptedAt: Date | null
}

/** Observations of acquirer notifications; the adapter records them as Prometheus metrics. */
export interface ProviderMetrics {
  /** A notification arrived at `POST /providers/{provider}/notifications` and was accepted, refused or not ours. */
  notification(provider: string, result: NotificationResult): void
  /** What this instance counted, per provider that notified it (the operator console's health page). */
  snapshot(): readonly ProviderNotificationStats[]
}
