import { AppError } from '../domain/errors.js'
import type { ApiKeyId } from '../domain/ids.js'
import type { AppDeps } from './deps.js'
import { requireUuid } from './require-id.js'

export async function revokeApiKey(deps: Pick<AppDeps, 'store' | 'clock'>, keyIdText: string): Promise<void> {
  const keyId = requireUuid('key_id', keyIdText) as ApiKeyId
  const revoked = await deps.store.transaction((tx) => tx.apiKeys.revoke(keyId, deps.clock.now()))
  if (!revoked) throw new AppError('not_found', `no active API key ${keyIdText}`)
}
