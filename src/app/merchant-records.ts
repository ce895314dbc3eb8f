import { AppError } from '../domain/errors.js'
import type { ApiKeyId, MerchantId } from '../domain/ids.js'
import type { ApiKeyRecord } from '../domain/merchant.js'
import type { Tx } from '../ports/store.js'
import type { AppDeps } from './deps.js'

/** What the merchant and key use cases share: their dependencies, the issued-key shape, and small checks. */
export type MerchantDeps = Pick<AppDeps, 'store' | 'clock' | 'newId' | 'secrets' | 'catalog'>

export interface IssuedKey {
  readonly key: ApiKeyRecord
  /** The key itself: shown once, never stored. */
  readonly apiKey: string
}

/** Issues a new key for the merchant inside `tx`: only its hash and prefix are stored. */
export async function insertKey(
  tx: Tx,
  deps: MerchantDeps,
  merchantId: MerchantId,
  now: Date,
  name: string | null = null,
): Promise<IssuedKey> {
  const apiKey = deps.secrets.newApiKey()
  const key: ApiKeyRecord = {
    id: deps.newId() as ApiKeyId,
    merchantId,
    hash: deps.secrets.hashApiKey(apiKey),
    prefix: apiKey.slice(0, 9),
    name,
    createdAt: now,
    revokedAt: null,
    lastUsedAt: null,
  }
  await tx.apiKeys.insert(key)
  return { key, apiKey }
}

export function merchantNotFound(id: string): AppError {
  return new AppError('not_found', `no merchant ${id}`)
}
