import { describe, expect, it } from 'vitest'
import { nodeSecrets } from '../adapters/system/secrets.js'
import { AppError } from '../domain/errors.js'
import type { ApiKeyId, MerchantId } from '../domain/ids.js'
import type { ApiKeyRecord, Merchant } from '../domain/merchant.js'
import { createApiKeyAuthenticator } from './authenticate-api-key.js'
import type { AppDeps } from './deps.js'

const KEY = `mk_${'A'.repeat(43)}`
const merchant: Merchant = {
  id: '01a21fb6-0ce8-7005-835e-134f826ab79c' as MerchantId,
  name: 'Shop',
  defaultService: 'card',
  status: 'active',
  createdAt: new Date(0),
}
const record = (hash: string): ApiKeyRecord => ({
  id: '01a21fb6-0ce8-7005-835e-134f826ab79d' as ApiKeyId,
  merchantId: merchant.id,
  hash,
  prefix: KEY.slice(0, 9),
  name: null,
  createdAt: new Date(0),
  revokedAt: null,
  lastUsedAt: null,
})

/**
 * The authenticator over a key store that answers every lookup with `stored` (a store whose comparison is not
 * exact — a case-insensitive collation — could answer a hash it was not asked for); counts lookups and comparisons.
 */
function authenticator(stored: (asked: string) => string) {
  const counts = { lookups: 0, comparisons: 0 }
  const store = {
    apiKeys: {
      findByHash: (hash: string) => {
        counts.lookups += 1
        return Promise.resolve({ key: record(stored(hash)), merchant })
      },
      markUsed: () => Promise.resolve(),
    },
  } as unknown as AppDeps['store']
  const secrets = {
    ...nodeSecrets,
    hashesEqual: (a: string, b: string) => {
      counts.comparisons += 1
      return nodeSecrets.hashesEqual(a, b)
    },
  }
  const authenticate = createApiKeyAuthenticator({ store, secrets, clock: { now: () => new Date() } }, 60)
  return { authenticate, counts }
}

describe('API key authentication (docs/api.md#authentication)', () => {
  it('when the store answers a record of another hash, then the key is refused and nothing is cached', async () => {
    const { authenticate, counts } = authenticator((asked) => asked.toUpperCase())
    for (let i = 0; i < 2; i++) {
      const refused = await Promise.resolve()
        .then(() => authenticate(KEY))
        .catch((err: unknown) => err)
      expect(refused).toBeInstanceOf(AppError)
      expect((refused as AppError).code).toBe('invalid_api_key')
    }
    expect(counts.lookups).toBe(2)
  })

  it('when a key is found, then its hash is compared once, as it is loaded; the cached key answers at once', async () => {
    const { authenticate, counts } = authenticator((asked) => asked)
    expect((await authenticate(KEY)).merchant.id).toBe(merchant.id)
    for (let i = 0; i < 3; i++) {
      const cached = authenticate(KEY)
      expect(cached).not.toBeInstanceOf(Promise)
      expect((cached as Awaited<typeof cached>).keyId).toBe(record('').id)
    }
    expect(counts).toEqual({ lookups: 1, comparisons: 1 })
  })
})
