import { createMerchant, type CreatedMerchant } from './create-merchant.js'
import type { AppDeps } from './deps.js'

/** docs/operations.md#the-demo-merchant: the first start of an empty database (outside production) creates a demo merchant to try the API with. */
export async function ensureDemoMerchant(
  deps: Pick<AppDeps, 'store' | 'clock' | 'newId' | 'secrets' | 'catalog'>,
): Promise<CreatedMerchant | undefined> {
  if ((await deps.store.merchants.count()) > 0) return undefined
  return createMerchant(deps, { name: 'Demo Shop' })
}
