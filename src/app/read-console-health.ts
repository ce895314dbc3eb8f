import type { DeliveryHealth } from '../ports/console-store.js'
import type { AppDeps } from './deps.js'

/** Counts stop here: the page's cost is bounded by it, not by the size of the tables. */
export const HEALTH_CAP = 10_000
/** The failing deliveries are sought among this many pending ones due first (their rows are read, not an index). */
export const HEALTH_WINDOW = 1_000

export interface ConsoleHealth {
  readonly at: Date
  readonly deliveries: DeliveryHealth
  /** Reconciliation (docs/providers.md#reconciliation): payment attempts and refunds due a check at the acquirer. */
  readonly attempts: { readonly due: number; readonly oldestDueAt: Date | null }
  readonly refunds: { readonly due: number; readonly oldestDueAt: Date | null }
}

/** The operator console's health page (docs/dashboard.md#operator-console): each figure a read of an index. */
export async function readConsoleHealth(deps: Pick<AppDeps, 'store' | 'clock'>): Promise<ConsoleHealth> {
  const at = deps.clock.now()
  const [deliveries, attempts, refunds] = await Promise.all([
    deps.store.console.deliveryHealth(at, HEALTH_CAP, HEALTH_WINDOW, 5),
    deps.store.attempts.dueStats(at),
    deps.store.console.refundDueStats(at),
  ])
  return { at, deliveries, attempts, refunds }
}
