import type { MerchantId } from '../domain/ids.js'
import type { Merchant, MerchantStatus } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { merchantNotFound } from './merchant-records.js'
import { requireUuid } from './require-id.js'

/**
 * `merchant disable|enable`: a disabled merchant's keys answer 403 merchant_disabled, and its users' dashboard
 * sessions end (docs/dashboard.md#sessions): enabling it again does not bring them back.
 */
export async function setMerchantStatus(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  id: string,
  status: MerchantStatus,
): Promise<Merchant> {
  const merchantId = requireUuid('merchant_id', id) as MerchantId
  return deps.store.transaction(async (tx) => {
    if (!(await tx.merchants.setStatus(merchantId, status))) throw merchantNotFound(id)
    const merchant = await tx.merchants.findById(merchantId)
    if (merchant === undefined) throw merchantNotFound(id)
    if (status === 'disabled') {
      const now = deps.clock.now()
      for (const user of await tx.users.listByMerchant(merchantId)) await tx.sessions.endAllOfUser(user.id, now)
    }
    return merchant
  })
}
