/** The Store contract for admin tokens (docs/admin-api.md#tokens). */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AdminTokenRecord } from '../../src/domain/admin-token.js'
import type { AdminTokenId } from '../../src/domain/ids.js'
import { at, HOUR, MINUTE, type ContractContext } from './fixtures.js'

function adminTokenFixture(name = 'ops'): AdminTokenRecord {
  return {
    id: randomUUID() as AdminTokenId,
    name,
    hash: randomUUID().replace(/-/g, '').padEnd(64, '0'),
    prefix: 'adm_abcdef',
    createdAt: at(0),
    revokedAt: null,
  }
}

export function describeOperatorContract(ctx: ContractContext): void {
  describe('adminTokens', () => {
    it('when a token is inserted, then findByHash returns it and list has it; an unknown hash returns undefined', async () => {
      const store = ctx.store()
      const token = adminTokenFixture()
      await store.transaction((tx) => tx.adminTokens.insert(token))
      expect(await store.adminTokens.findByHash(token.hash)).toEqual(token)
      expect(await store.adminTokens.findByHash('0'.repeat(64))).toBeUndefined()
      expect(await store.adminTokens.list()).toEqual([token])
    })

    it('when a token is revoked, then it reads revoked; revoking it again or an unknown one answers false', async () => {
      const store = ctx.store()
      const token = adminTokenFixture()
      await store.transaction((tx) => tx.adminTokens.insert(token))
      expect(await store.transaction((tx) => tx.adminTokens.revoke(token.id, at(MINUTE)))).toBe(true)
      expect(await store.transaction((tx) => tx.adminTokens.revoke(token.id, at(HOUR)))).toBe(false)
      expect(await store.transaction((tx) => tx.adminTokens.revoke(adminTokenFixture().id, at(HOUR)))).toBe(false)
      expect((await store.adminTokens.findByHash(token.hash))?.revokedAt).toEqual(at(MINUTE))
    })

    it('when two tokens share a hash, then the second insert fails (the unique index)', async () => {
      const store = ctx.store()
      const token = adminTokenFixture()
      await store.transaction((tx) => tx.adminTokens.insert(token))
      await expect(
        store.transaction((tx) => tx.adminTokens.insert({ ...adminTokenFixture(), hash: token.hash })),
      ).rejects.toThrow()
    })
  })
}

/** The sign-in throttle's counting upsert (docs/dashboard.md#sign-in): its SQL differs from the other repos'. */
export function describeSignInThrottleContract(ctx: ContractContext): void {
  describe('signInThrottle', () => {
    it('when failures are recorded, then they count within the window and start again after it; clear forgets them', async () => {
      const store = ctx.store()
      const count = (now: Date) => store.transaction((tx) => tx.signInThrottle.failures('account:a', now, HOUR))
      const fail = (now: Date) => store.transaction((tx) => tx.signInThrottle.recordFailure('account:a', now, HOUR))
      expect(await count(at(0))).toBe(0)
      expect(await fail(at(0))).toBe(1)
      expect(await fail(at(MINUTE))).toBe(2)
      expect(await Promise.all([fail(at(2 * MINUTE)), fail(at(2 * MINUTE))])).toEqual(expect.arrayContaining([3, 4]))
      expect(await count(at(2 * MINUTE))).toBe(4)
      expect(await count(at(HOUR))).toBe(0)
      expect(await fail(at(HOUR))).toBe(1)
      await store.transaction((tx) => tx.signInThrottle.clear('account:a'))
      expect(await count(at(HOUR))).toBe(0)
    })
  })
}
