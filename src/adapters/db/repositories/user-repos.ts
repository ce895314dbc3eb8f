/** Dashboard users, links, recovery codes, sessions and the sign-in throttle over Kysely (SQLite and PostgreSQL alike). */
import { sql, type Kysely } from 'kysely'
import type { MerchantId, SessionId, UserId } from '../../../domain/ids.js'
import type { LinkPurpose, Role, Session, SessionStage, User, UserLink } from '../../../domain/user.js'
import type {
  RecoveryCodeRepo,
  SessionRepo,
  SignInThrottleRepo,
  UserLinkRepo,
  UserRepo,
} from '../../../ports/user-store.js'
import type { Database, SessionRow, SqlDialect, UserLinkRow, UserRow } from '../schema.js'
import type { Guard } from '../unavailable.js'

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms))
const ms = (d: Date | null): number | null => (d === null ? null : d.getTime())

const USER_COLUMNS = [
  'id',
  'merchant_id',
  'email',
  'role',
  'password_hash',
  'totp_secret',
  'totp_enabled_at',
  'password_changed_at',
  'created_at',
] as const

const toUser = (r: Pick<UserRow, (typeof USER_COLUMNS)[number]>): User => ({
  id: r.id as UserId,
  merchantId: r.merchant_id as MerchantId | null,
  email: r.email,
  role: r.role as Role,
  passwordHash: r.password_hash,
  totpSecret: r.totp_secret,
  totpEnabledAt: date(r.totp_enabled_at),
  passwordChangedAt: date(r.password_changed_at),
  createdAt: new Date(r.created_at),
})

abstract class Repo {
  protected readonly db: Kysely<Database>
  protected readonly guard: Guard
  protected readonly dialect: SqlDialect
  constructor(db: Kysely<Database>, guard: Guard, dialect: SqlDialect = 'sqlite') {
    this.db = db
    this.guard = guard
    this.dialect = dialect
  }
}

export class KyselyUserRepo extends Repo implements UserRepo {
  async findById(id: UserId): Promise<User | undefined> {
    const row = await this.guard(
      this.db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst(),
    )
    return row && toUser(row)
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = await this.guard(
      this.db.selectFrom('users').select(USER_COLUMNS).where('email', '=', email).executeTakeFirst(),
    )
    return row && toUser(row)
  }

  async listByMerchant(merchantId: MerchantId): Promise<User[]> {
    const rows = await this.guard(
      this.db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .where('merchant_id', '=', merchantId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute(),
    )
    return rows.map(toUser)
  }

  async lastSignIns(merchantId: MerchantId): Promise<Map<UserId, Date>> {
    const rows = await this.guard(
      this.db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(['s.user_id', (eb) => eb.fn.max('s.created_at').as('at')])
        .where('u.merchant_id', '=', merchantId)
        .where('s.stage', '=', 'full')
        .groupBy('s.user_id')
        .execute(),
    )
    // PostgreSQL returns max(bigint) as text
    return new Map(rows.map((r) => [r.user_id as UserId, new Date(Number(r.at))]))
  }

  async lockTeam(merchantId: MerchantId): Promise<void> {
    if (this.dialect !== 'postgres') return
    await this.guard(this.db.selectFrom('merchants').select('id').where('id', '=', merchantId).forUpdate().execute())
  }

  async setRole(id: UserId, merchantId: MerchantId, role: Role): Promise<boolean> {
    const r = await this.guard(
      this.db
        .updateTable('users')
        .set({ role })
        .where('id', '=', id)
        .where('merchant_id', '=', merchantId)
        .executeTakeFirst(),
    )
    return r.numUpdatedRows > 0n
  }

  async remove(id: UserId, merchantId: MerchantId): Promise<boolean> {
    const user = await this.guard(
      this.db
        .selectFrom('users')
        .select('id')
        .where('id', '=', id)
        .where('merchant_id', '=', merchantId)
        .executeTakeFirst(),
    )
    if (user === undefined) return false
    for (const table of ['sessions', 'user_links', 'recovery_codes'] as const)
      await this.guard(this.db.deleteFrom(table).where('user_id', '=', id).execute())
    await this.guard(this.db.deleteFrom('users').where('id', '=', id).execute())
    return true
  }

  async countOwners(merchantId: MerchantId): Promise<number> {
    const row = await this.guard(
      this.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('merchant_id', '=', merchantId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow(),
    )
    return Number(row.n)
  }

  async insert(u: User): Promise<'inserted' | 'email_taken'> {
    const result = await this.guard(
      this.db
        .insertInto('users')
        .values({
          id: u.id,
          merchant_id: u.merchantId,
          email: u.email,
          role: u.role,
          password_hash: u.passwordHash,
          totp_secret: u.totpSecret,
          totp_enabled_at: ms(u.totpEnabledAt),
          totp_last_step: null,
          password_changed_at: ms(u.passwordChangedAt),
          created_at: u.createdAt.getTime(),
        })
        .onConflict((oc) => oc.column('email').doNothing())
        .executeTakeFirst(),
    )
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n ? 'inserted' : 'email_taken'
  }

  async setPassword(id: UserId, passwordHash: string, at: Date): Promise<void> {
    await this.guard(
      this.db
        .updateTable('users')
        .set({ password_hash: passwordHash, password_changed_at: at.getTime() })
        .where('id', '=', id)
        .execute(),
    )
  }

  async useTotpStep(id: UserId, step: number): Promise<boolean> {
    const r = await this.guard(
      this.db
        .updateTable('users')
        .set({ totp_last_step: step })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
        .executeTakeFirst(),
    )
    return r.numUpdatedRows > 0n
  }

  async setTotp(id: UserId, secret: string | null, enabledAt: Date | null): Promise<void> {
    await this.guard(
      this.db
        .updateTable('users')
        .set({ totp_secret: secret, totp_enabled_at: ms(enabledAt) })
        .where('id', '=', id)
        .execute(),
    )
  }
}

const toLink = (r: UserLinkRow): UserLink => ({
  id: r.id,
  userId: r.user_id as UserId,
  purpose: r.purpose as LinkPurpose,
  hash: r.hash,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
  usedAt: date(r.used_at),
})

export class KyselyUserLinkRepo extends Repo implements UserLinkRepo {
  async insert(l: UserLink): Promise<void> {
    await this.guard(
      this.db
        .insertInto('user_links')
        .values({
          id: l.id,
          user_id: l.userId,
          purpose: l.purpose,
          hash: l.hash,
          created_at: l.createdAt.getTime(),
          expires_at: l.expiresAt.getTime(),
          used_at: ms(l.usedAt),
        })
        .execute(),
    )
  }

  async findByHash(hash: string): Promise<UserLink | undefined> {
    const row = await this.guard(
      this.db
        .selectFrom('user_links')
        .select(['id', 'user_id', 'purpose', 'hash', 'created_at', 'expires_at', 'used_at'])
        .where('hash', '=', hash)
        .executeTakeFirst(),
    )
    return row && toLink(row)
  }

  async markUsed(id: string, at: Date): Promise<boolean> {
    const r = await this.guard(
      this.db
        .updateTable('user_links')
        .set({ used_at: at.getTime() })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst(),
    )
    return r.numUpdatedRows > 0n
  }

  async retireAll(userId: UserId, at: Date): Promise<void> {
    await this.guard(
      this.db
        .updateTable('user_links')
        .set({ used_at: at.getTime() })
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .execute(),
    )
  }

  async purge(before: Date, limit: number): Promise<number> {
    const due = this.db.selectFrom('user_links').select('id').where('expires_at', '<', before.getTime()).limit(limit)
    const r = await this.guard(this.db.deleteFrom('user_links').where('id', 'in', due).executeTakeFirst())
    return Number(r.numDeletedRows)
  }
}

export class KyselyRecoveryCodeRepo extends Repo implements RecoveryCodeRepo {
  async replace(userId: UserId, hashes: readonly { id: string; hash: string }[]): Promise<void> {
    await this.guard(this.db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute())
    if (hashes.length === 0) return
    await this.guard(
      this.db
        .insertInto('recovery_codes')
        .values(hashes.map((h) => ({ id: h.id, user_id: userId, hash: h.hash, used_at: null })))
        .execute(),
    )
  }

  async use(userId: UserId, hash: string, at: Date): Promise<boolean> {
    const r = await this.guard(
      this.db
        .updateTable('recovery_codes')
        .set({ used_at: at.getTime() })
        .where('user_id', '=', userId)
        .where('hash', '=', hash)
        .where('used_at', 'is', null)
        .executeTakeFirst(),
    )
    return r.numUpdatedRows > 0n
  }

  async countUnused(userId: UserId): Promise<number> {
    const row = await this.guard(
      this.db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirstOrThrow(),
    )
    return Number(row.n)
  }
}

const SESSION_COLUMNS = [
  'id',
  'hash',
  'user_id',
  'stage',
  'csrf_token',
  'created_at',
  'last_seen_at',
  'ended_at',
] as const

const toSession = (r: SessionRow): Session => ({
  id: r.id as SessionId,
  hash: r.hash,
  userId: r.user_id as UserId,
  stage: r.stage as SessionStage,
  csrfToken: r.csrf_token,
  createdAt: new Date(r.created_at),
  lastSeenAt: new Date(r.last_seen_at),
  endedAt: date(r.ended_at),
})

export class KyselySessionRepo extends Repo implements SessionRepo {
  async insert(s: Session): Promise<void> {
    await this.guard(
      this.db
        .insertInto('sessions')
        .values({
          id: s.id,
          hash: s.hash,
          user_id: s.userId,
          stage: s.stage,
          csrf_token: s.csrfToken,
          created_at: s.createdAt.getTime(),
          last_seen_at: s.lastSeenAt.getTime(),
          ended_at: ms(s.endedAt),
        })
        .execute(),
    )
  }

  async findByHash(hash: string): Promise<Session | undefined> {
    const row = await this.guard(
      this.db.selectFrom('sessions').select(SESSION_COLUMNS).where('hash', '=', hash).executeTakeFirst(),
    )
    return row && toSession(row)
  }

  async touch(id: SessionId, at: Date): Promise<void> {
    await this.guard(
      this.db
        .updateTable('sessions')
        .set({ last_seen_at: at.getTime() })
        .where('id', '=', id)
        .where('last_seen_at', '<', at.getTime())
        .execute(),
    )
  }

  async end(id: SessionId, at: Date): Promise<boolean> {
    const r = await this.guard(
      this.db
        .updateTable('sessions')
        .set({ ended_at: at.getTime() })
        .where('id', '=', id)
        .where('ended_at', 'is', null)
        .executeTakeFirst(),
    )
    return r.numUpdatedRows > 0n
  }

  async endAllOfUser(userId: UserId, at: Date): Promise<number> {
    const r = await this.guard(
      this.db
        .updateTable('sessions')
        .set({ ended_at: at.getTime() })
        .where('user_id', '=', userId)
        .where('ended_at', 'is', null)
        .executeTakeFirst(),
    )
    return Number(r.numUpdatedRows)
  }

  async purge(before: Date, idleMs: number, absoluteMs: number, limit: number): Promise<number> {
    const t = before.getTime()
    const due = this.db
      .selectFrom('sessions')
      .select('id')
      .where((eb) =>
        eb.or([eb('ended_at', '<', t), eb('last_seen_at', '<', t - idleMs), eb('created_at', '<', t - absoluteMs)]),
      )
      .limit(limit)
    const r = await this.guard(this.db.deleteFrom('sessions').where('id', 'in', due).executeTakeFirst())
    return Number(r.numDeletedRows)
  }
}

export class KyselySignInThrottleRepo extends Repo implements SignInThrottleRepo {
  async failures(key: string, now: Date, windowMs: number): Promise<number> {
    const row = await this.guard(
      this.db
        .selectFrom('sign_in_failures')
        .select(['window_start', 'failures'])
        .where('key', '=', key)
        .executeTakeFirst(),
    )
    return row === undefined || row.window_start <= now.getTime() - windowMs ? 0 : row.failures
  }

  /** One upsert: concurrent failures on several instances each count (no read-then-write). */
  async recordFailure(key: string, now: Date, windowMs: number): Promise<number> {
    const t = now.getTime()
    const stale = sql<boolean>`sign_in_failures.window_start <= ${t - windowMs}`
    const row = await this.guard(
      this.db
        .insertInto('sign_in_failures')
        .values({ key, window_start: t, failures: 1 })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            failures: sql<number>`case when ${stale} then 1 else sign_in_failures.failures + 1 end`,
            window_start: sql<number>`case when ${stale} then ${t} else sign_in_failures.window_start end`,
          }),
        )
        .returning('failures')
        .executeTakeFirstOrThrow(),
    )
    return Number(row.failures)
  }

  async clear(key: string): Promise<void> {
    await this.guard(this.db.deleteFrom('sign_in_failures').where('key', '=', key).execute())
  }

  async purge(before: Date, limit: number): Promise<number> {
    const due = this.db
      .selectFrom('sign_in_failures')
      .select('key')
      .where('window_start', '<=', before.getTime())
      .limit(limit)
    const r = await this.guard(this.db.deleteFrom('sign_in_failures').where('key', 'in', due).executeTakeFirst())
    return Number(r.numDeletedRows)
  }
}
