/**
 * Migration 011: what the dashboard's account pages read (docs/dashboard.md#webhooks, docs/dashboard.md#api-keys).
 * - API keys get a name (null for the keys issued before) and the time they were last used (written at most
 *   once a minute per key, off the request path: docs/dashboard.md#api-keys).
 * - The delivery log lists failures first: deliveries by merchant, status, then newest, so the failed ones are one
 *   index range and the rest a scan of the merchant's log that skips them — never a sort of the whole log.
 * Frozen once released.
 */
import type { Kysely, Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function dashboardAccountMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('api_keys').addColumn('name', 'text').execute()
      await db.schema.alterTable('api_keys').addColumn('last_used_at', int64).execute()
      await db.schema
        .createIndex('deliveries_merchant_status_idx')
        .on('deliveries')
        .columns(['merchant_id', 'status', 'created_at', 'id'])
        .execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('deliveries_merchant_status_idx').execute()
      await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute()
      await db.schema.alterTable('api_keys').dropColumn('name').execute()
    },
  }
}
