import type { MerchantId, UserId } from '../domain/ids.js'
import { lastOwner, userNotFound } from './change-user-role.js'
import type { AppDeps } from './deps.js'
import { requireUuid } from './require-id.js'

/**
 * The dashboard's team page (docs/dashboard.md#team): the merchant's user is deleted with their sessions (signed out
 * at once, everywhere), links and recovery codes; the address may be invited again. The last owner stays.
 */
export async function removeUser(
  deps: Pick<AppDeps, 'store'>,
  merchantId: MerchantId,
  userIdText: string,
): Promise<void> {
  const userId = requireUuid('user_id', userIdText) as UserId
  await deps.store.transaction(async (tx) => {
    await tx.users.lockTeam(merchantId)
    if (!(await tx.users.remove(userId, merchantId))) throw userNotFound(userIdText)
    if ((await tx.users.countOwners(merchantId)) === 0) throw lastOwner()
  })
}
