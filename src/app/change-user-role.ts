import { AppError, validationFailed } from '../domain/errors.js'
import type { MerchantId, UserId } from '../domain/ids.js'
import { parseMerchantRole } from '../domain/user.js'
import type { AppDeps } from './deps.js'
import { requireUuid } from './require-id.js'

/**
 * The dashboard's team page (docs/dashboard.md#team): a user of the merchant becomes `owner` or `viewer`. The
 * merchant's last owner stays one; another merchant's user answers 404 like one that does not exist.
 */
export async function changeUserRole(
  deps: Pick<AppDeps, 'store'>,
  merchantId: MerchantId,
  userIdText: string,
  roleText: string,
): Promise<void> {
  const userId = requireUuid('user_id', userIdText) as UserId
  const role = parseMerchantRole(roleText)
  if (role === undefined) throw validationFailed([{ field: 'role', message: 'must be owner or viewer' }])
  await deps.store.transaction(async (tx) => {
    await tx.users.lockTeam(merchantId)
    if (!(await tx.users.setRole(userId, merchantId, role))) throw userNotFound(userIdText)
    if ((await tx.users.countOwners(merchantId)) === 0) throw lastOwner()
  })
}

export function userNotFound(id: string): AppError {
  return new AppError('not_found', `no user ${id}`)
}

/** docs/dashboard.md#team: a merchant always keeps an owner (checked after the change, which it then undoes). */
export function lastOwner(): AppError {
  return new AppError('validation_failed', 'user_id: the last owner can be neither removed nor made a viewer', [
    { field: 'user_id', message: 'the last owner can be neither removed nor made a viewer' },
  ])
}
