/**
 * Migration 002: webhook deliveries (docs/webhooks.md#events, docs/webhooks.md#delivery-log). Each event of an invoice with a callback_url gets a delivery
 * row — with the exact webhook body fixed at the event — and its attempts: retries are rows, not sleeps
 * (docs/architecture.md#retries-are-rows-not-sleeps). Frozen once released.
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function webhooksMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  const strict = <T extends CreateTableBuilder<string, never>>(t: T): T =>
    dialect === 'sqlite' ? (t.modifyEnd(sql`strict`) as T) : t

  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
        .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        // docs/webhooks.md#events: `data` is the invoice as it was at the event, fixed in the event's own transaction
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempt_count', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', int64)
        .addColumn('lease_until', int64)
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addCheckConstraint('deliveries_status_check', sql`status in ('pending', 'succeeded', 'failed')`)
        // one delivery per event: an event is never queued twice
        .addUniqueConstraint('deliveries_event_key', ['event_id'])
        .$call(strict)
        .execute()
      // the dispatcher's claim: pending deliveries by due time
      await db.schema
        .createIndex('deliveries_due_idx')
        .on('deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute()
      // per-invoice order: "is an earlier delivery of this invoice still pending?" — a covering seek; with status
      // second, SQLite's planner prefers it to deliveries_due_idx without statistics
      await db.schema
        .createIndex('deliveries_invoice_idx')
        .on('deliveries')
        .columns(['invoice_id', 'status', 'created_at', 'id'])
        .execute()
      // the merchant's delivery log, newest first with a (created_at, id) cursor
      await db.schema
        .createIndex('deliveries_merchant_idx')
        .on('deliveries')
        .columns(['merchant_id', 'created_at', 'id'])
        .execute()

      await db.schema
        .createTable('delivery_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id'))
        .addColumn('at', int64, (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .$call(strict)
        .execute()
      await db.schema
        .createIndex('delivery_attempts_delivery_idx')
        .on('delivery_attempts')
        .columns(['delivery_id', 'at', 'id'])
        .execute()
    },

    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('delivery_attempts').execute()
      await db.schema.dropTable('deliveries').execute()
    },
  }
}
