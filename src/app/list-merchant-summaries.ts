import type { ServiceRules } from '../domain/catalog.js'
import type { MerchantSummary } from '../ports/console-store.js'
import type { AppDeps } from './deps.js'

/**
 * The operator console's merchants (docs/dashboard.md#operator-console): each with its active keys and users, and
 * the services with the fee each charges (SERVICE_FEES applies per service, to every merchant alike).
 */
export async function listMerchantSummaries(
  deps: Pick<AppDeps, 'store' | 'catalog'>,
): Promise<{ merchants: MerchantSummary[]; services: readonly ServiceRules[] }> {
  return { merchants: await deps.store.console.merchantSummaries(), services: deps.catalog.services }
}
