/**
 * Migration 009: the dashboard's daily totals (docs/dashboard.md#daily-totals). `daily_totals`: per merchant, UTC day
 * (days since 1970-01-01) and currency, how many of the day's invoices are now on hold, paid, failed or expired, and
 * the payments and succeeded refunds of the day. `daily_created`: the invoices created on each ended day, kept once.
 * Filled here from the invoices and refunds already there. Frozen once released.
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'
import { rebuildDailyTotals } from '../repositories/daily-totals-repo.js'

export function dailyTotalsMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  const strict = <T extends CreateTableBuilder<string, never>>(t: T): T =>
    dialect === 'sqlite' ? (t.modifyEnd(sql`strict`) as T) : t
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('daily_totals')
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('now_hold', 'integer', (c) => c.notNull())
        .addColumn('now_paid', 'integer', (c) => c.notNull())
        .addColumn('now_failed', 'integer', (c) => c.notNull())
        .addColumn('now_expired', 'integer', (c) => c.notNull())
        .addColumn('paid_count', 'integer', (c) => c.notNull())
        .addColumn('paid_amount', int64, (c) => c.notNull())
        .addColumn('credited_amount', int64, (c) => c.notNull())
        .addColumn('refunded_amount', int64, (c) => c.notNull())
        .addPrimaryKeyConstraint('daily_totals_pkey', ['merchant_id', 'day', 'currency'])
        .$call(strict)
        .execute()
      await db.schema
        .createTable('daily_created')
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('created', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('daily_created_pkey', ['merchant_id', 'day'])
        .$call(strict)
        .execute()
      await rebuildDailyTotals(db, new Date())
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('daily_created').execute()
      await db.schema.dropTable('daily_totals').execute()
    },
  }
}
