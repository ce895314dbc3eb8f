/**
 * Migration 004: the service's fee on an invoice, fixed when it is created (docs/api.md#fees-and-credited: credited = amount − fee).
 * Before it, the fee came from SERVICE_FEES as configured when the invoice was paid: a fee changed in between
 * applied to invoices issued on the old terms, and an invoice whose service had since been removed was credited
 * in full. Null on invoices created before this migration (or by an older version during a rolling upgrade);
 * those still take the fee configured at payment. Frozen once released.
 */
import type { Kysely, Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function invoiceFeeMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('invoices').addColumn('fee', int64).execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('invoices').dropColumn('fee').execute()
    },
  }
}
