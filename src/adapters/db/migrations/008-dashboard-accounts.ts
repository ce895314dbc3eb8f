/**
 * Migration 008: the accounts of the admin API (docs/admin-api.md) and of the dashboard (docs/dashboard.md):
 * admin tokens, users, one-time links, recovery codes, sessions and the sign-in throttle. Tokens, links and
 * sessions are stored only as SHA-256 hashes; passwords as scrypt hashes. Frozen once released.
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function dashboardAccountsMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  const strict = <T extends CreateTableBuilder<string, never>>(t: T): T =>
    dialect === 'sqlite' ? (t.modifyEnd(sql`strict`) as T) : t
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('admin_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('revoked_at', int64)
        // every admin request looks its token up by hash
        .addUniqueConstraint('admin_tokens_hash_key', ['hash'])
        .$call(strict)
        .execute()

      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        // null for an operator (role admin); a merchant's user otherwise
        .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
        // lower-cased at the edge: one account per address
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('totp_secret', 'text')
        .addColumn('totp_enabled_at', int64)
        // the last TOTP time step accepted: a code is accepted once (RFC 6238 §5.2)
        .addColumn('totp_last_step', int64)
        .addColumn('password_changed_at', int64)
        .addColumn('created_at', int64, (c) => c.notNull())
        .addCheckConstraint('users_role_check', sql`role in ('owner', 'viewer', 'admin')`)
        .addCheckConstraint(
          'users_admin_check',
          sql`(role = 'admin' and merchant_id is null) or (role <> 'admin' and merchant_id is not null)`,
        )
        .addUniqueConstraint('users_email_key', ['email'])
        .$call(strict)
        .execute()
      await db.schema.createIndex('users_merchant_idx').on('users').columns(['merchant_id']).execute()

      // one-time links: an invitation or a password reset, 24 h, single use
      await db.schema
        .createTable('user_links')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('expires_at', int64, (c) => c.notNull())
        .addColumn('used_at', int64)
        .addCheckConstraint('user_links_purpose_check', sql`purpose in ('invite', 'reset')`)
        .addUniqueConstraint('user_links_hash_key', ['hash'])
        .$call(strict)
        .execute()
      await db.schema.createIndex('user_links_user_idx').on('user_links').columns(['user_id']).execute()

      await db.schema
        .createTable('recovery_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('used_at', int64)
        .addUniqueConstraint('recovery_codes_user_hash_key', ['user_id', 'hash'])
        .$call(strict)
        .execute()

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        // SHA-256 of the cookie's value: a leaked table does not sign anyone in
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        // 'totp': the password was right, the second factor is still due; 'full': signed in
        .addColumn('stage', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('last_seen_at', int64, (c) => c.notNull())
        .addColumn('ended_at', int64)
        .addCheckConstraint('sessions_stage_check', sql`stage in ('totp', 'full')`)
        .addUniqueConstraint('sessions_hash_key', ['hash'])
        .$call(strict)
        .execute()
      // "end every session of this user" (sign-out everywhere, a password change)
      await db.schema.createIndex('sessions_user_idx').on('sessions').columns(['user_id']).execute()

      // failed sign-ins per account and per address, in fixed windows: shared by every instance
      await db.schema
        .createTable('sign_in_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('window_start', int64, (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .$call(strict)
        .execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const table of ['sign_in_failures', 'sessions', 'recovery_codes', 'user_links', 'users', 'admin_tokens'])
        await db.schema.dropTable(table).execute()
    },
  }
}
