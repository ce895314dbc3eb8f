/**
 * Migration 003: the webhook claim seeks each merchant's due deliveries apart (its fair share of the dispatcher's
 * slots): pending deliveries by merchant, then due time. With status first, the merchants that have pending
 * deliveries are found by one seek each, past any number of delivered rows. Frozen once released.
 */
import type { Kysely, Migration } from 'kysely'

export function merchantDueIndexMigration(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('deliveries_merchant_due_idx')
        .on('deliveries')
        .columns(['status', 'merchant_id', 'next_attempt_at'])
        .execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('deliveries_merchant_due_idx').execute()
    },
  }
}
