import type { MerchantId } from '../domain/ids.js'
import type { Merchant, MerchantStatus } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { merchantNotFound } from './merchant-records.js'
import { requireUuid } from './require-id.js'

/** `merchant disable|enable`: a disabled merchant's keys answer 403 merchant_disabled. */
export async function setMerchantStatus(
  deps: Pick<AppDeps, 'store'>,
  id: string,
  status: MerchantStatus,
): Promise<Merchant> {
  const merchantId = requireUuid('merchant_id', id) as MerchantId
  return deps.store.transaction(async (tx) => {
    if (!(await tx.merchants.setStatus(merchantId, status))) throw merchantNotFound(id)
    const merchant = await tx.merchants.findById(merchantId)
    if (merchant === undefined) throw merchantNotFound(id)
    return merchant
  })
}
