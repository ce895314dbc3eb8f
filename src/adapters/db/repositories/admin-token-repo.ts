/** Admin API tokens over Kysely (docs/admin-api.md#tokens): the same queries serve SQLite and PostgreSQL. */
import type { Kysely } from 'kysely'
import type { AdminTokenRecord } from '../../../domain/admin-token.js'
import type { AdminTokenId } from '../../../domain/ids.js'
import type { AdminTokenRepo } from '../../../ports/store.js'
import type { AdminTokenRow, Database } from '../schema.js'
import type { Guard } from '../unavailable.js'

const COLUMNS = ['id', 'name', 'hash', 'prefix', 'created_at', 'revoked_at'] as const

const toRecord = (r: AdminTokenRow): AdminTokenRecord => ({
  id: r.id as AdminTokenId,
  name: r.name,
  hash: r.hash,
  prefix: r.prefix,
  createdAt: new Date(r.created_at),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
})

export class KyselyAdminTokenRepo implements AdminTokenRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard

  constructor(db: Kysely<Database>, guard: Guard) {
    this.#db = db
    this.#guard = guard
  }

  async findByHash(hash: string): Promise<AdminTokenRecord | undefined> {
    const row = await this.#guard(
      this.#db.selectFrom('admin_tokens').select(COLUMNS).where('hash', '=', hash).executeTakeFirst(),
    )
    return row && toRecord(row)
  }

  async list(): Promise<AdminTokenRecord[]> {
    const rows = await this.#guard(
      this.#db.selectFrom('admin_tokens').select(COLUMNS).orderBy('created_at', 'asc').orderBy('id', 'asc').execute(),
    )
    return rows.map(toRecord)
  }

  async insert(t: AdminTokenRecord): Promise<void> {
    await this.#guard(
      this.#db
        .insertInto('admin_tokens')
        .values({
          id: t.id,
          name: t.name,
          hash: t.hash,
          prefix: t.prefix,
          created_at: t.createdAt.getTime(),
          revoked_at: t.revokedAt === null ? null : t.revokedAt.getTime(),
        })
        .execute(),
    )
  }

  async revoke(id: AdminTokenId, at: Date): Promise<boolean> {
    const result = await this.#guard(
      this.#db
        .updateTable('admin_tokens')
        .set({ revoked_at: at.getTime() })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst(),
    )
    return result.numUpdatedRows > 0n
  }
}
