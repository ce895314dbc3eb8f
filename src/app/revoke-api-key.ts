import { AppError } from '../domain/errors.js'
import type { ApiKeyId, MerchantId } from '../domain/ids.js'
import type { AppDeps } from './deps.js'
import { requireUuid } from './require-id.js'

/**
 * `key revoke`, the admin API and the dashboard. With `merchantId` (the dashboard's signed-in merchant) only that
 * merchant's key is revoked: another merchant's answers 404 like one that does not exist.
 */
export async function revokeApiKey(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  keyIdText: string,
  merchantId?: MerchantId,
): Promise<void> {
  const keyId = requireUuid('key_id', keyIdText) as ApiKeyId
  const revoked = await deps.store.transaction((tx) => tx.apiKeys.revoke(keyId, deps.clock.now(), merchantId))
  if (!revoked) throw new AppError('not_found', `no active API key ${keyIdText}`)
}
