import type { AdminTokenRecord } from '../domain/admin-token.js'
import type { AppDeps } from './deps.js'

/** `admin-token list`: every admin token, revoked ones too, oldest first (prefixes only: the hashes stay inside). */
export async function listAdminTokens(deps: Pick<AppDeps, 'store'>): Promise<AdminTokenRecord[]> {
  return deps.store.adminTokens.list()
}
