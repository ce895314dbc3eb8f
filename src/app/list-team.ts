import type { MerchantId } from '../domain/ids.js'
import type { User } from '../domain/user.js'
import type { AppDeps } from './deps.js'

export interface TeamMember {
  readonly user: User
  /** The start of their latest session; null when not known (never signed in, or before sessions were kept). */
  readonly lastSignInAt: Date | null
}

/** The dashboard's team page (docs/dashboard.md#team): the merchant's users, oldest first, with their last sign-in. */
export async function listTeam(deps: Pick<AppDeps, 'store'>, merchantId: MerchantId): Promise<TeamMember[]> {
  const [users, signIns] = await Promise.all([
    deps.store.users.listByMerchant(merchantId),
    deps.store.users.lastSignIns(merchantId),
  ])
  return users.map((user) => ({ user, lastSignInAt: signIns.get(user.id) ?? null }))
}
