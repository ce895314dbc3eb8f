/**
 * Migrations are code, listed here in order: no directory scanning, so they run the same from src/ (tests)
 * and dist/ (the built package). Kysely applies them in the lexical order of their names.
 */
import { DEFAULT_MIGRATION_TABLE, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import type { SqlDialect } from '../schema.js'
import { initialMigration } from './001-initial.js'
import { webhooksMigration } from './002-webhooks.js'
import { merchantDueIndexMigration } from './003-merchant-due-index.js'
import { invoiceFeeMigration } from './004-invoice-fee.js'
import { paymentAttemptsMigration } from './005-payment-attempts.js'
import { refundsMigration } from './006-refunds.js'
import { evmMigration } from './007-evm.js'
import { dashboardAccountsMigration } from './008-dashboard-accounts.js'
import { dailyTotalsMigration } from './009-daily-totals.js'
import { invoiceFilterIndexesMigration } from './010-invoice-filter-indexes.js'
import { dashboardAccountMigration } from './011-dashboard-account.js'
import { orderIndexNotLiveMigration } from './012-order-index-not-live.js'

/**
 * This version's migrations, and `applied` ones it does not know as done: a newer version applied them. Migrations
 * only ever add (tables, columns, indexes), so an instance of an older version (from the one that added 003 on)
 * still runs on the database a newer one migrated — during a rolling upgrade, or after rolling back. Kysely alone
 * would refuse to start it ("previously executed migration … is missing").
 */
export function migrationProvider(dialect: SqlDialect, applied: readonly string[] = []): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '001-initial': initialMigration(dialect),
    '002-webhooks': webhooksMigration(dialect),
    '003-merchant-due-index': merchantDueIndexMigration(),
    '004-invoice-fee': invoiceFeeMigration(dialect),
    '005-payment-attempts': paymentAttemptsMigration(dialect),
    '006-refunds': refundsMigration(dialect),
    '007-evm': evmMigration(dialect),
    '008-dashboard-accounts': dashboardAccountsMigration(dialect),
    '009-daily-totals': dailyTotalsMigration(dialect),
    '010-invoice-filter-indexes': invoiceFilterIndexesMigration(),
    '011-dashboard-account': dashboardAccountMigration(dialect),
    '012-order-index-not-live': orderIndexNotLiveMigration(),
  }
  for (const name of applied) migrations[name] ??= { up: async () => undefined }
  return { getMigrations: async () => migrations }
}

/** The names of the migrations applied to the database (in `schema`, if given); none before the first migrate. */
export async function appliedMigrations(db: Kysely<any>, schema: string | undefined): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true })
  if (!tables.some((t) => t.name === DEFAULT_MIGRATION_TABLE && (schema === undefined || t.schema === schema)))
    return []
  const rows: { name: string }[] = await (schema === undefined ? db : db.withSchema(schema))
    .selectFrom(DEFAULT_MIGRATION_TABLE)
    .select('name')
    .execute()
  return rows.map((r) => r.name)
}
