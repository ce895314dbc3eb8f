/** The Store contract for merchants, API keys and webhook secrets (docs/api.md#authentication, docs/webhooks.md#secret-rotation). */
import { describe, expect, it } from 'vitest'
import type { ApiKeyId } from '../../src/domain/ids.js'
import { StoreUnavailableError } from '../../src/ports/store.js'
import {
  apiKeyFixture,
  at,
  givenMerchant,
  HOUR,
  merchantFixture,
  MINUTE,
  webhookSecretFixture,
  type ContractContext,
} from './fixtures.js'

export function describeAccountContract(ctx: ContractContext): void {
  describe('merchants', () => {
    it('when a merchant is inserted, then findById returns it as written; an unknown id returns undefined', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store, { name: 'Лавка «Ромашка»', defaultService: 'sbp', status: 'disabled' })
      expect(await store.merchants.findById(m.id)).toEqual(m)
      expect(await store.merchants.findById(merchantFixture().id)).toBeUndefined()
    })

    it('when merchants are inserted, then count grows and list returns them oldest first', async () => {
      const store = ctx.store()
      const before = await store.merchants.count()
      const late = await givenMerchant(store, { createdAt: at(2 * HOUR) })
      const early = await givenMerchant(store, { createdAt: at(-2 * HOUR) })
      const middle = await givenMerchant(store, { createdAt: at(0) })
      expect(await store.merchants.count()).toBe(before + 3)
      const mine = new Set([late.id, early.id, middle.id])
      const listed = (await store.merchants.list()).filter((m) => mine.has(m.id))
      expect(listed).toEqual([early, middle, late])
    })

    it('when the status is set, then setStatus returns true and the merchant reads with it; an unknown id returns false', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      expect(await store.transaction((tx) => tx.merchants.setStatus(m.id, 'disabled'))).toBe(true)
      expect(await store.merchants.findById(m.id)).toEqual({ ...m, status: 'disabled' })
      expect(await store.transaction((tx) => tx.merchants.setStatus(m.id, 'active'))).toBe(true)
      expect(await store.merchants.findById(m.id)).toEqual(m)
      expect(await store.transaction((tx) => tx.merchants.setStatus(merchantFixture().id, 'disabled'))).toBe(false)
    })

    it('when a merchant id is inserted twice, then the second insert throws', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      await expect(store.transaction((tx) => tx.merchants.insert({ ...m, name: 'Other' }))).rejects.toThrow()
      expect(await store.merchants.findById(m.id)).toEqual(m)
    })
  })

  describe('apiKeys', () => {
    it('when a key is inserted, then findByHash returns it with its merchant; an unknown hash returns undefined', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const key = apiKeyFixture(m.id)
      await store.transaction((tx) => tx.apiKeys.insert(key))
      expect(await store.apiKeys.findByHash(key.hash)).toEqual({ key, merchant: m })
      expect(await store.apiKeys.findByHash('0'.repeat(64))).toBeUndefined()
    })

    it('when the merchant is disabled, then findByHash returns the merchant as disabled', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const key = apiKeyFixture(m.id)
      await store.transaction(async (tx) => {
        await tx.apiKeys.insert(key)
        await tx.merchants.setStatus(m.id, 'disabled')
      })
      expect((await store.apiKeys.findByHash(key.hash))?.merchant.status).toBe('disabled')
    })

    it('when a merchant has several keys, then listByMerchant returns only theirs, oldest first', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const other = await givenMerchant(store)
      const second = apiKeyFixture(m.id, { createdAt: at(HOUR) })
      const first = apiKeyFixture(m.id, { createdAt: at(0) })
      await store.transaction(async (tx) => {
        await tx.apiKeys.insert(second)
        await tx.apiKeys.insert(first)
        await tx.apiKeys.insert(apiKeyFixture(other.id))
      })
      expect(await store.apiKeys.listByMerchant(m.id)).toEqual([first, second])
    })

    it('when a key is revoked, then revoke returns true once, and the key still reads, with revokedAt', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const key = apiKeyFixture(m.id)
      const kept = apiKeyFixture(m.id)
      await store.transaction(async (tx) => {
        await tx.apiKeys.insert(key)
        await tx.apiKeys.insert(kept)
      })
      expect(await store.transaction((tx) => tx.apiKeys.revoke(key.id, at(MINUTE)))).toBe(true)
      expect(await store.apiKeys.findByHash(key.hash)).toEqual({ key: { ...key, revokedAt: at(MINUTE) }, merchant: m })
      expect(await store.transaction((tx) => tx.apiKeys.revoke(key.id, at(HOUR)))).toBe(false)
      expect((await store.apiKeys.findByHash(key.hash))?.key.revokedAt).toEqual(at(MINUTE))
      expect((await store.apiKeys.findByHash(kept.hash))?.key.revokedAt).toBeNull()
      expect(await store.transaction((tx) => tx.apiKeys.revoke(apiKeyFixture(m.id).id as ApiKeyId, at(HOUR)))).toBe(
        false,
      )
    })

    it('when a key is revoked for another merchant, then nothing changes; markUsed only moves last_used_at forward', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const other = await givenMerchant(store)
      const key = apiKeyFixture(m.id, { name: 'checkout' })
      await store.transaction((tx) => tx.apiKeys.insert(key))
      expect(await store.transaction((tx) => tx.apiKeys.revoke(key.id, at(MINUTE), other.id))).toBe(false)
      await store.apiKeys.markUsed(key.id, at(HOUR))
      await store.apiKeys.markUsed(key.id, at(MINUTE))
      expect(await store.apiKeys.listByMerchant(m.id)).toEqual([{ ...key, lastUsedAt: at(HOUR) }])
      expect(await store.transaction((tx) => tx.apiKeys.revoke(key.id, at(HOUR), m.id))).toBe(true)
    })

    it('when two keys have the same hash, then the second insert throws (and not as unavailable)', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const key = apiKeyFixture(m.id)
      await store.transaction((tx) => tx.apiKeys.insert(key))
      const dup = apiKeyFixture(m.id, { hash: key.hash })
      const err = await store
        .transaction((tx) => tx.apiKeys.insert(dup))
        .then(
          () => undefined,
          (e: unknown) => e,
        )
      expect(err).toBeInstanceOf(Error)
      expect(err).not.toBeInstanceOf(StoreUnavailableError)
      expect(await store.apiKeys.listByMerchant(m.id)).toEqual([key])
    })
  })

  describe('webhookSecrets', () => {
    it('when a merchant has one secret, then listActive returns it; another merchant`s secrets are not listed', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const other = await givenMerchant(store)
      const secret = webhookSecretFixture(m.id)
      await store.transaction(async (tx) => {
        await tx.webhookSecrets.insert(secret)
        await tx.webhookSecrets.insert(webhookSecretFixture(other.id))
      })
      expect(await store.webhookSecrets.listActive(m.id, at(0))).toEqual([secret])
    })

    it('when the secret is rotated, then both sign until the grace period ends (exclusive), the new one first', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const old = webhookSecretFixture(m.id, { createdAt: at(0) })
      await store.transaction((tx) => tx.webhookSecrets.insert(old))
      const fresh = webhookSecretFixture(m.id, { createdAt: at(MINUTE) })
      await store.transaction(async (tx) => {
        await tx.webhookSecrets.retireCurrent(m.id, at(HOUR))
        await tx.webhookSecrets.insert(fresh)
      })
      const retired = { ...old, expiresAt: at(HOUR) }
      expect(await store.webhookSecrets.listActive(m.id, at(MINUTE))).toEqual([fresh, retired])
      expect(await store.webhookSecrets.listActive(m.id, at(HOUR - 1))).toEqual([fresh, retired])
      expect(await store.webhookSecrets.listActive(m.id, at(HOUR))).toEqual([fresh])
    })

    it('when rotated in the same millisecond it was created, then the current secret (no expiry) still comes first', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const old = webhookSecretFixture(m.id)
      const fresh = webhookSecretFixture(m.id)
      await store.transaction(async (tx) => {
        await tx.webhookSecrets.insert(old)
        await tx.webhookSecrets.retireCurrent(m.id, at(HOUR))
        await tx.webhookSecrets.insert(fresh)
      })
      expect(await store.webhookSecrets.listActive(m.id, at(0))).toEqual([fresh, { ...old, expiresAt: at(HOUR) }])
    })

    it('when rotated again within the grace period, then retireCurrent leaves already-retired secrets as they were', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const first = webhookSecretFixture(m.id, { createdAt: at(0) })
      const second = webhookSecretFixture(m.id, { createdAt: at(MINUTE) })
      const third = webhookSecretFixture(m.id, { createdAt: at(2 * MINUTE) })
      await store.transaction((tx) => tx.webhookSecrets.insert(first))
      await store.transaction(async (tx) => {
        await tx.webhookSecrets.retireCurrent(m.id, at(HOUR))
        await tx.webhookSecrets.insert(second)
      })
      await store.transaction(async (tx) => {
        await tx.webhookSecrets.retireCurrent(m.id, at(2 * HOUR))
        await tx.webhookSecrets.insert(third)
      })
      expect(await store.webhookSecrets.listActive(m.id, at(3 * MINUTE))).toEqual([
        third,
        { ...second, expiresAt: at(2 * HOUR) },
        { ...first, expiresAt: at(HOUR) },
      ])
      expect(await store.webhookSecrets.listActive(m.id, at(90 * MINUTE))).toEqual([
        third,
        { ...second, expiresAt: at(2 * HOUR) },
      ])
    })
  })
}
