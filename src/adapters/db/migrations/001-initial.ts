/**
 * Migration 001: merchants, API keys, webhook secrets, invoices and the events outbox.
 * Frozen once released: a schema change is a new migration, never an edit here.
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration, type SqlBool } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function initialMigration(dialect: SqlDialect): Migration {
  // Epoch milliseconds and minor units outgrow 32 bits: BIGINT on PostgreSQL; SQLite's INTEGER is 64-bit
  // already, and a STRICT table accepts only its own five type names.
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  // SQLite only: STRICT tables refuse a value of the wrong type (a float amount, a text time) instead of
  // storing it silently, so "integers end to end" holds in the database too.
  const strict = <T extends CreateTableBuilder<string, never>>(t: T): T =>
    dialect === 'sqlite' ? (t.modifyEnd(sql`strict`) as T) : t

  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('merchants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('default_service', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addCheckConstraint('merchants_status_check', sql`status in ('active', 'disabled')`)
        .$call(strict)
        .execute()

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('revoked_at', int64)
        // authentication looks keys up by hash on every request; unique also means one hash names one key
        .addUniqueConstraint('api_keys_hash_key', ['hash'])
        .$call(strict)
        .execute()
      await db.schema.createIndex('api_keys_merchant_idx').on('api_keys').column('merchant_id').execute()

      await db.schema
        .createTable('webhook_secrets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('expires_at', int64)
        .$call(strict)
        .execute()
      await db.schema.createIndex('webhook_secrets_merchant_idx').on('webhook_secrets').column('merchant_id').execute()

      await db.schema
        .createTable('invoices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('amount', int64, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('comment', 'text')
        .addColumn('callback_url', 'text')
        .addColumn('success_url', 'text')
        .addColumn('fail_url', 'text')
        .addColumn('pay_url', 'text', (c) => c.notNull())
        .addColumn('qr_data', 'text', (c) => c.notNull())
        .addColumn('credited', int64)
        .addColumn('expires_at', int64, (c) => c.notNull())
        .addColumn('paid_at', int64)
        .addColumn('held_at', int64)
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addCheckConstraint('invoices_status_check', sql`status in ('pending', 'hold', 'paid', 'failed', 'expired')`)
        .$call(strict)
        .execute()
      // docs/api.md#idempotency: one live invoice per (merchant, order_id), settled by the database under concurrency.
      // The predicate is repeated verbatim by the insert's ON CONFLICT target (schema.ts LIVE_ORDER_PREDICATE).
      await db.schema
        .createIndex('invoices_live_order_key')
        .on('invoices')
        .columns(['merchant_id', 'order_id'])
        .unique()
        .where(sql<SqlBool>`status in ('pending', 'hold', 'paid')`)
        .execute()
      // getInfo by order_id reads the newest invoice of the order. `id` completes the sort key (created_at desc,
      // id desc): without it SQLite prefers walking the merchant's whole newest-first index below to avoid a sort.
      await db.schema
        .createIndex('invoices_order_idx')
        .on('invoices')
        .columns(['merchant_id', 'order_id', 'created_at', 'id'])
        .execute()
      // newest-first listing with a (created_at, id) cursor
      await db.schema
        .createIndex('invoices_merchant_created_idx')
        .on('invoices')
        .columns(['merchant_id', 'created_at', 'id'])
        .execute()
      // the expiry sweeper: pending invoices by due time
      await db.schema
        .createIndex('invoices_status_expires_idx')
        .on('invoices')
        .columns(['status', 'expires_at'])
        .execute()

      // The transactional outbox: written in the transaction of the transition that caused it (docs/api.md#statuses, docs/webhooks.md#delivery).
      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .$call(strict)
        .execute()
      await db.schema
        .createIndex('events_invoice_idx')
        .on('events')
        .columns(['invoice_id', 'created_at', 'id'])
        .execute()
    },

    async down(db: Kysely<any>): Promise<void> {
      for (const table of ['events', 'invoices', 'webhook_secrets', 'api_keys', 'merchants']) {
        await db.schema.dropTable(table).execute()
      }
    },
  }
}
