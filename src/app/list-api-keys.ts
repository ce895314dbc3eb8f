import type { MerchantId } from '../domain/ids.js'
import type { ApiKeyRecord } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { merchantNotFound } from './merchant-records.js'
import { requireUuid } from './require-id.js'

export async function listApiKeys(deps: Pick<AppDeps, 'store'>, merchantIdText: string): Promise<ApiKeyRecord[]> {
  const merchantId = requireUuid('merchant_id', merchantIdText) as MerchantId
  if ((await deps.store.merchants.findById(merchantId)) === undefined) throw merchantNotFound(merchantIdText)
  return deps.store.apiKeys.listByMerchant(merchantId)
}
