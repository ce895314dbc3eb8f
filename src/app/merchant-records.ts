import { findService } from '../domain/catalog.js'
import { AppError, type FieldError } from '../domain/errors.js'
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

/**
 * What is wrong with a merchant's name (trimmed) or default service, first found first; undefined when both are
 * acceptable. The CLI's `merchant create`, the admin API and the dashboard's settings page check the same way.
 */
export function merchantSettingsProblem(
  deps: Pick<MerchantDeps, 'catalog'>,
  name: string,
  defaultService: string,
): FieldError | undefined {
  if (name === '' || name.length > 200) return { field: 'name', message: 'must be 1 to 200 characters' }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return { field: 'name', message: 'must not contain control characters' }
  if (findService(deps.catalog, defaultService) === undefined) {
    const names = deps.catalog.services.map((s) => s.name).join(', ')
    return { field: 'default_service', message: `must be one of: ${names}` }
  }
  return undefined
}
