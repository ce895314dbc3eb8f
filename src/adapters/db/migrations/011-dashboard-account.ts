/**
 * Migration 011: what the dashboard's account pages read (docs/dashboard.md#webhooks).
 * - The delivery log lists failures first: deliveries by merchant, status, then newest, so the failed ones are one
 *   index range and the rest a scan of the merchant's log that skips them — never a sort of the whole log.
 * Frozen once released.
 */
import type { Kysely, Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function dashboardAccountMigration(_dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('deliveries_merchant_status_idx')
        .on('deliveries')
        .columns(['merchant_id', 'status', 'created_at', 'id'])
        .execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('deliveries_merchant_status_idx').execute()
    },
  }
}
