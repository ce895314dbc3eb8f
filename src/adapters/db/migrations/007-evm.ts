/**
 * Migration 007: stablecoin payments on EVM chains (docs/stablecoins.md). Payout addresses per (merchant, service);
 * each invoice's deposit address and CREATE2 salt; the detector's cursor per service; every transfer seen to a
 * deposit address (with its block, so a reorg can be told); the sweeps to the payout address; and on invoices the
 * time an on-time payment was seen, which keeps the invoice from expiring while it confirms. Token amounts
 * (`units`) are decimal text: a token's units (18 decimals) overflow a 64-bit integer long before they are absurd. Frozen once
 * released. (006 is the refunds'.)
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely'
import type { SqlDialect } from '../schema.js'

export function evmMigration(dialect: SqlDialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer'
  const strict = <T extends CreateTableBuilder<string, never>>(t: T): T =>
    dialect === 'sqlite' ? (t.modifyEnd(sql`strict`) as T) : t
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('invoices').addColumn('payment_seen_at', int64).execute()
      await db.schema
        .createTable('evm_payouts')
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addPrimaryKeyConstraint('evm_payouts_pkey', ['merchant_id', 'service'])
        .$call(strict)
        .execute()
      await db.schema
        .createTable('evm_deposits')
        .addColumn('invoice_id', 'text', (c) => c.primaryKey().references('invoices.id'))
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('chain_id', int64, (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        // lower-case hex: compared with the addresses of logs
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('salt', 'text', (c) => c.notNull())
        .addColumn('payout', 'text', (c) => c.notNull())
        .addColumn('units', 'text', (c) => c.notNull())
        // the detector watches the address until then: expired_at + EVM_LATE_WINDOW, or for ever while pending
        .addColumn('watch_until', int64, (c) => c.notNull())
        // 'watching' | 'done' (paid, late payment reported, or out of the window)
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addCheckConstraint('evm_deposits_state_check', sql`state in ('watching', 'done')`)
        .$call(strict)
        .execute()
      await db.schema
        .createIndex('evm_deposits_address_key')
        .on('evm_deposits')
        .columns(['chain_id', 'token', 'address'])
        .unique()
        .execute()
      await db.schema
        .createIndex('evm_deposits_watch_idx')
        .on('evm_deposits')
        .columns(['service', 'state', 'watch_until'])
        .execute()
      await db.schema
        .createTable('evm_cursors')
        .addColumn('service', 'text', (c) => c.primaryKey())
        .addColumn('chain_id', int64, (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        // the first block not read yet
        .addColumn('next_block', int64, (c) => c.notNull())
        // one detector at a time across instances: a lease, taken and renewed by compare-and-set
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', int64, (c) => c.notNull())
        // the timestamp of the last block read: a deposit invoice expires only once the chain was read past its
        // expired_at, so a transfer mined just before it is seen first (docs/stablecoins.md#states)
        .addColumn('read_until', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .$call(strict)
        .execute()
      await db.schema
        .createTable('evm_transfers')
        .addColumn('chain_id', int64, (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
        .addColumn('block_number', int64, (c) => c.notNull())
        .addColumn('block_hash', 'text', (c) => c.notNull())
        .addColumn('block_time', int64, (c) => c.notNull())
        .addColumn('units', 'text', (c) => c.notNull())
        .addColumn('confirmations', 'integer', (c) => c.notNull())
        // when invoice.late_payment told the merchant of it (money on an invoice that could no longer take it)
        .addColumn('reported_at', int64)
        .addColumn('created_at', int64, (c) => c.notNull())
        .addPrimaryKeyConstraint('evm_transfers_pkey', ['chain_id', 'tx_hash', 'log_index'])
        .$call(strict)
        .execute()
      await db.schema.createIndex('evm_transfers_invoice_idx').on('evm_transfers').columns(['invoice_id']).execute()
      await db.schema
        .createTable('evm_sweeps')
        .addColumn('invoice_id', 'text', (c) => c.primaryKey().references('invoices.id'))
        // 'due' | 'done'
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('tx_hash', 'text')
        .addColumn('units', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('next_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addCheckConstraint('evm_sweeps_state_check', sql`state in ('due', 'done')`)
        .$call(strict)
        .execute()
      await db.schema.createIndex('evm_sweeps_due_idx').on('evm_sweeps').columns(['state', 'next_at']).execute()
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const t of ['evm_sweeps', 'evm_transfers', 'evm_cursors', 'evm_deposits', 'evm_payouts'])
        await db.schema.dropTable(t).execute()
      await db.schema.alterTable('invoices').dropColumn('payment_seen_at').execute()
    },
  }
}
