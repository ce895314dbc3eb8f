import { AppError } from '../domain/errors.js'
import type { AdminTokenId } from '../domain/ids.js'
import type { AppDeps } from './deps.js'
import { requireUuid } from './require-id.js'

/** `admin-token revoke ID`: the token fails at once (admin tokens are never cached). */
export async function revokeAdminToken(deps: Pick<AppDeps, 'store' | 'clock'>, idText: string): Promise<void> {
  const id = requireUuid('token_id', idText) as AdminTokenId
  const revoked = await deps.store.transaction((tx) => tx.adminTokens.revoke(id, deps.clock.now()))
  if (!revoked) throw new AppError('not_found', `no active admin token ${idText}`)
}
