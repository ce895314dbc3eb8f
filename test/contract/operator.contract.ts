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
