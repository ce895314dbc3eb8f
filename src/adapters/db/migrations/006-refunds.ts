/**
 * Migration 006: refunds of paid invoices (docs/refunds.md). One row per refund: its amount in minor units, its
 * status (pending → succeeded | failed), the merchant's Idempotency-Key with a hash of the request it came with,
 * the acquirer's refund id, and when reconciliation asks the acquirer next about a refund still pending. The
 * sandbox's test control (docs/refunds.md#sandbox) is a row per invoice whose next refund is to fail. Frozen once
 * released.
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function refundsMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  const strict = <T extends CreateTableBuilder<string, never>>(t: T): T =>
    dialect === 'sqlite' ? (t.modifyEnd(sql`strict`) as T) : t
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('refunds')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        // the provider that was asked (the invoice's, as it was at the refund): reconciliation asks it again
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('amount', int64, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('failure_reason', 'text')
        .addColumn('provider_refund_id', 'text')
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        // SHA-256 of the request's canonical form: the same key with another request is idempotency_key_reuse
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('checks', 'integer', (c) => c.notNull())
        .addColumn('next_check_at', int64)
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addCheckConstraint('refunds_status_check', sql`status in ('pending', 'succeeded', 'failed')`)
        .addCheckConstraint('refunds_amount_check', sql`amount > 0`)
        // concurrent requests with one key race to insert: one wins, the others answer its refund
        .addUniqueConstraint('refunds_idempotency_key', ['merchant_id', 'idempotency_key'])
        .$call(strict)
        .execute()
      // the invoice's refunds, oldest first, and their sum
      await db.schema.createIndex('refunds_invoice_idx').on('refunds').columns(['invoice_id', 'created_at']).execute()
      // reconciliation: the refunds due a check
      await db.schema.createIndex('refunds_check_idx').on('refunds').columns(['next_check_at']).execute()
      // an acquirer's notification names its refund id
      await db.schema
        .createIndex('refunds_provider_refund_idx')
        .on('refunds')
        .columns(['provider', 'provider_refund_id'])
        .execute()
      await db.schema
        .createTable('sandbox_refund_failures')
        .addColumn('invoice_id', 'text', (c) => c.primaryKey().references('invoices.id'))
        .addColumn('created_at', int64, (c) => c.notNull())
        .$call(strict)
        .execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('sandbox_refund_failures').execute()
      await db.schema.dropTable('refunds').execute()
    },
  }
}
