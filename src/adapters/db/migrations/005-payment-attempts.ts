/**
 * Migration 005: checkout attempts at real acquirers (docs/providers.md#attempts). One row per attempt of an
 * invoice, with its idempotency key's number, the acquirer's ids, its state as last heard, a late payment's
 * settlement, and when reconciliation asks next. Frozen once released.
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function paymentAttemptsMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  const strict = <T extends CreateTableBuilder<string, never>>(t: T): T =>
    dialect === 'sqlite' ? (t.modifyEnd(sql`strict`) as T) : t
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('payment_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('checkout_id', 'text')
        .addColumn('payment_id', 'text')
        .addColumn('redirect_url', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('amount', int64)
        .addColumn('late_action', 'text')
        .addColumn('next_check_at', int64)
        .addColumn('checks', 'integer', (c) => c.notNull())
        // every write adds one: updates are compare-and-set on it
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addCheckConstraint(
          'payment_attempts_state_check',
          sql`state in ('starting', 'open', 'held', 'succeeded', 'canceled', 'ended')`,
        )
        .addCheckConstraint(
          'payment_attempts_late_check',
          sql`late_action is null or late_action in ('void', 'refund', 'voided', 'refunded')`,
        )
        // two tabs pressing Pay at once race to insert the same attempt number: one wins, the other reuses it
        .addUniqueConstraint('payment_attempts_invoice_key', ['invoice_id', 'attempt'])
        .$call(strict)
        .execute()
      // a notification names the acquirer's ids
      await db.schema
        .createIndex('payment_attempts_checkout_idx')
        .on('payment_attempts')
        .columns(['provider', 'checkout_id'])
        .execute()
      await db.schema
        .createIndex('payment_attempts_payment_idx')
        .on('payment_attempts')
        .columns(['provider', 'payment_id'])
        .execute()
      // reconciliation: the attempts due a check
      await db.schema
        .createIndex('payment_attempts_check_idx')
        .on('payment_attempts')
        .columns(['next_check_at'])
        .execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('payment_attempts').execute()
    },
  }
}
