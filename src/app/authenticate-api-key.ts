import { AppError } from '../domain/errors.js'
import { isWellFormedApiKey, type ApiKeyRecord, type Merchant } from '../domain/merchant.js'
import type { MaybePromise } from '../domain/maybe-promise.js'
import type { AppDeps } from './deps.js'

export interface Authenticated {
  readonly merchant: Merchant
  readonly keyId: ApiKeyRecord['id']
}

/** last_used_at is written at most this often per key and instance. */
const LAST_USED_EVERY_MS = 60_000

interface Entry {
  readonly key: ApiKeyRecord
  readonly merchant: Merchant
  readonly loadedAt: number
}

/**
 * docs/api.md#authentication. Looks the key up by its SHA-256 hash and compares the hashes in constant time. Found keys are
 * cached for `ttlSeconds` so the hot path skips the database (by the same hash: a cached key was compared when it
 * was loaded, and a hit is the map's own equality of the whole hash); a revocation or a disabled merchant therefore
 * takes effect within that many seconds on every instance (0 disables the cache). Unknown keys are never
 * cached, so a newly issued key works at once.
 *
 * Last used (docs/dashboard.md#api-keys) costs a request one map lookup: the time is written out at most once a
 * minute per key, after the request's own work (setImmediate), and never awaited by it.
 */
export function createApiKeyAuthenticator(
  deps: Pick<AppDeps, 'store' | 'clock' | 'secrets'>,
  ttlSeconds: number,
  maxEntries = 10_000,
): (apiKey: string | undefined) => MaybePromise<Authenticated> {
  const cache = new Map<string, Entry>()
  const ttlMs = ttlSeconds * 1000
  /** key id → when this instance last wrote its last_used_at (epoch ms). */
  const written = new Map<string, number>()
  const markUsed = (id: ApiKeyRecord['id'], now: number) => {
    if (written.size >= maxEntries) written.delete(written.keys().next().value as string)
    written.delete(id) // re-insert at the end: the map's order is the eviction order
    written.set(id, now)
    // best effort: a lost write only leaves last-used a minute behind, and must never fail a request
    setImmediate(() => void deps.store.apiKeys.markUsed(id, new Date(now)).catch(() => undefined))
  }

  /** What a request with a found (or cached) key gets: refused if revoked or disabled, else its merchant. */
  const admit = (entry: Entry, now: number): Authenticated => {
    if (entry.key.revokedAt !== null) throw invalid()
    if (entry.merchant.status !== 'active') throw new AppError('merchant_disabled', 'this merchant is disabled')
    const last = written.get(entry.key.id)
    if (last === undefined || now - last >= LAST_USED_EVERY_MS || now < last) markUsed(entry.key.id, now)
    return { merchant: entry.merchant, keyId: entry.key.id }
  }

  // Synchronous (a value, or a throw) when the key is cached: only a lookup in the store is waited for.
  return (apiKey) => {
    if (apiKey === undefined || apiKey === '')
      throw new AppError('missing_api_key', 'send your API key in the X-Api-Key header')
    if (!isWellFormedApiKey(apiKey)) throw invalid()
    const hash = deps.secrets.hashApiKey(apiKey)
    const now = deps.clock.now().getTime()
    const entry = cache.get(hash)
    // (a clock that stepped back since the entry was loaded says nothing of its age: it is loaded again)
    if (entry !== undefined && now - entry.loadedAt < ttlMs && now >= entry.loadedAt) return admit(entry, now)
    return deps.store.apiKeys.findByHash(hash).then((found) => {
      if (found === undefined || !deps.secrets.hashesEqual(found.key.hash, hash)) {
        cache.delete(hash)
        throw invalid()
      }
      const loaded = { ...found, loadedAt: now }
      if (ttlMs > 0) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string)
        cache.delete(hash) // re-insert at the end: the map's order is the eviction order
        cache.set(hash, loaded)
      }
      return admit(loaded, now)
    })
  }
}

function invalid(): AppError {
  return new AppError('invalid_api_key', 'the API key is unknown or revoked')
}
