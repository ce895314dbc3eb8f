/**
 * Migration 010: the dashboard's invoice filters (docs/dashboard.md#invoices). A page of a merchant's invoices is
 * read newest first with a (created_at, id) keyset; 001's (merchant_id, created_at, id) serves it unfiltered and by
 * created range. Filtered by a status, a service or a currency it would walk the merchant's invoices until `limit`
 * matched — all of them for a rare value. Each index here leads with the filter after merchant_id, so that walk
 * reads only matching rows, already in order. Three, not one per combination: a combination walks the index of one
 * of its filters (the planner's pick) and checks the others on those rows. Each index is one more B-tree insert per
 * created invoice (issue #27 watches that cost): measured in the commit that adds this. Frozen once released.
 */
import type { Kysely, Migration } from 'kysely'

const INDEXES = [
  ['invoices_merchant_status_created_idx', 'status'],
  ['invoices_merchant_service_created_idx', 'service'],
  ['invoices_merchant_currency_created_idx', 'currency'],
] as const

export function invoiceFilterIndexesMigration(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const [name, column] of INDEXES)
        await db.schema.createIndex(name).on('invoices').columns(['merchant_id', column, 'created_at', 'id']).execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const [name] of INDEXES) await db.schema.dropIndex(name).execute()
    },
  }
}
