import type { AdminTokenRecord } from '../domain/admin-token.js'
import { isWellFormedAdminToken } from '../domain/admin-token.js'
import { AppError } from '../domain/errors.js'
import type { AppDeps } from './deps.js'

/**
 * docs/admin-api.md#authentication: the admin token of an `Authorization: Bearer …` header. Missing, malformed,
 * unknown and revoked tokens get the same 401 `unauthenticated`. Not cached: admin calls are rare, and a revoked
 * token must fail at once on every instance.
 */
export async function authenticateAdminToken(
  deps: Pick<AppDeps, 'store' | 'secrets'>,
  token: string | undefined,
): Promise<AdminTokenRecord> {
  if (token === undefined || token === '')
    throw new AppError('unauthenticated', 'send an admin token as Authorization: Bearer adm_…')
  if (!isWellFormedAdminToken(token)) throw invalid()
  const hash = deps.secrets.hashToken(token)
  const found = await deps.store.adminTokens.findByHash(hash)
  if (found === undefined || !deps.secrets.hashesEqual(found.hash, hash) || found.revokedAt !== null) throw invalid()
  return found
}

function invalid(): AppError {
  return new AppError('unauthenticated', 'the admin token is unknown or revoked')
}
