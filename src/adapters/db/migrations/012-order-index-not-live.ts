/**
 * Migration 012: the invoices of an order are found through two partial indexes instead of one full index and one
 * partial. 001 gave every invoice an entry in both invoices_live_order_key (merchant_id, order_id; the live ones,
 * unique: docs/api.md#idempotency) and invoices_order_idx (merchant_id, order_id, created_at, id; all of them), so
 * every create wrote two entries at a random place (order ids do not arrive in order) into two B-trees keyed alike.
 * A live invoice needs only the first: here the second holds only the invoices that are not live (failed, expired),
 * and a lookup by order reads both (schema.ts NOT_LIVE_ORDER_PREDICATE). A create writes one order entry; an invoice
 * gets its second when it fails or expires, off the create's path. Measured in the commit that adds this
 * (bench/history/changes.json, "one order index a create").
 *
 * Instances of an older version keep working beside this one (docs/scaling.md#migrations-and-rolling-upgrades):
 * their insert's conflict target is the unchanged unique index; their lookups by order_id, which ask for every
 * status at once, no longer have an index of their own and walk the merchant's newest-first index instead — right,
 * and slower the older the order. Frozen once released.
 */
import { sql, type Kysely, type Migration, type SqlBool } from 'kysely'

export function orderIndexNotLiveMigration(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('invoices_order_not_live_idx')
        .on('invoices')
        .columns(['merchant_id', 'order_id', 'created_at', 'id'])
        .where(sql<SqlBool>`status not in ('pending', 'hold', 'paid')`)
        .execute()
      await db.schema.dropIndex('invoices_order_idx').execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('invoices_order_idx')
        .on('invoices')
        .columns(['merchant_id', 'order_id', 'created_at', 'id'])
        .execute()
      await db.schema.dropIndex('invoices_order_not_live_idx').execute()
    },
  }
}
