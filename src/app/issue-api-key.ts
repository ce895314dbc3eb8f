import type { MerchantId } from '../domain/ids.js'
import { insertKey, merchantNotFound, type IssuedKey, type MerchantDeps } from './merchant-records.js'
import { requireUuid } from './require-id.js'

/** `key create`: a further active key for the merchant (rotation without downtime). */
export async function issueApiKey(deps: MerchantDeps, merchantIdText: string): Promise<IssuedKey> {
  const merchantId = requireUuid('merchant_id', merchantIdText) as MerchantId
  return deps.store.transaction(async (tx) => {
    if ((await tx.merchants.findById(merchantId)) === undefined) throw merchantNotFound(merchantIdText)
    return insertKey(tx, deps, merchantId, deps.clock.now())
  })
}
