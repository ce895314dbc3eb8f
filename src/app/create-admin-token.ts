import { ADMIN_TOKEN_PREFIX, type AdminTokenRecord } from '../domain/admin-token.js'
import { validationFailed } from '../domain/errors.js'
import type { AdminTokenId } from '../domain/ids.js'
import type { AppDeps } from './deps.js'

export interface IssuedAdminToken {
  readonly record: AdminTokenRecord
  /** The token itself: shown once, never stored. */
  readonly token: string
}

/** `admin-token create [--name N]`: a bearer token of the admin API (docs/admin-api.md#tokens); only its hash is kept. */
export async function createAdminToken(
  deps: Pick<AppDeps, 'store' | 'clock' | 'newId' | 'secrets'>,
  input: { name?: string | undefined } = {},
): Promise<IssuedAdminToken> {
  const name = (input.name ?? 'admin').trim()
  // eslint-disable-next-line no-control-regex
  if (name === '' || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name))
    throw validationFailed([{ field: 'name', message: 'must be 1 to 100 characters without control characters' }])
  const token = deps.secrets.newToken(ADMIN_TOKEN_PREFIX)
  const record: AdminTokenRecord = {
    id: deps.newId() as AdminTokenId,
    name,
    hash: deps.secrets.hashToken(token),
    prefix: token.slice(0, ADMIN_TOKEN_PREFIX.length + 6),
    createdAt: deps.clock.now(),
    revokedAt: null,
  }
  await deps.store.transaction((tx) => tx.adminTokens.insert(record))
  return { record, token }
}
