import { AppError } from '../domain/errors.js'
import { isWellFormedApiKey, type ApiKeyRecord, type Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'

export interface Authenticated {
  readonly merchant: Merchant
  readonly keyId: ApiKeyRecord['id']
}

interface Entry {
  readonly key: ApiKeyRecord
  readonly merchant: Merchant
  readonly loadedAt: number
}

/**
 * docs/api.md#authentication. Looks the key up by its SHA-256 hash and compares the hashes in constant time. Found keys are
 * cached for `ttlSeconds` so the hot path skips the database; a revocation or a disabled merchant therefore
 * takes effect within that many seconds on every instance (0 disables the cache). Unknown keys are never
 * cached, so a newly issued key works at once.
 */
export function createApiKeyAuthenticator(
  deps: Pick<AppDeps, 'store' | 'clock' | 'secrets'>,
  ttlSeconds: number,
  maxEntries = 10_000,
): (apiKey: string | undefined) => Promise<Authenticated> {
  const cache = new Map<string, Entry>()
  const ttlMs = ttlSeconds * 1000

  return async (apiKey) => {
    if (apiKey === undefined || apiKey === '')
      throw new AppError('missing_api_key', 'send your API key in the X-Api-Key header')
    if (!isWellFormedApiKey(apiKey)) throw invalid()
    const hash = deps.secrets.hashApiKey(apiKey)
    const now = deps.clock.now().getTime()
    let entry = cache.get(hash)
    // (a clock that stepped back since the entry was loaded says nothing of its age: it is loaded again)
    if (entry === undefined || now - entry.loadedAt >= ttlMs || now < entry.loadedAt) {
      const found = await deps.store.apiKeys.findByHash(hash)
      if (found === undefined) {
        cache.delete(hash)
        throw invalid()
      }
      entry = { ...found, loadedAt: now }
      if (ttlMs > 0) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string)
        cache.delete(hash) // re-insert at the end: the map's order is the eviction order
        cache.set(hash, entry)
      }
    }
    if (!deps.secrets.hashesEqual(entry.key.hash, hash) || entry.key.revokedAt !== null) throw invalid()
    if (entry.merchant.status !== 'active') throw new AppError('merchant_disabled', 'this merchant is disabled')
    return { merchant: entry.merchant, keyId: entry.key.id }
  }
}

function invalid(): AppError {
  return new AppError('invalid_api_key', 'the API key is unknown or revoked')
}
