/**
 * The `evm` provider's storage over Kysely (migration 007, docs/stablecoins.md): the same queries on SQLite and
 * PostgreSQL. The detector's cursor is a lease taken by compare-and-set; sweeps are claimed FOR UPDATE SKIP LOCKED
 * on PostgreSQL (SQLite has one writer).
 */
import type { Kysely } from 'kysely'
import type { Deposit, SeenTransfer } from '../../../domain/evm-deposit.js'
import type { InvoiceId, MerchantId } from '../../../domain/ids.js'
import type { DetectorCursor, EvmRepo, EvmSweep } from '../../../ports/evm-store.js'
import type { Database, EvmDepositRow, EvmSweepRow, EvmTransferRow, SqlDialect } from '../schema.js'
import type { Guard } from '../unavailable.js'

function rowToDeposit(r: EvmDepositRow): Deposit {
  return {
    invoiceId: r.invoice_id as InvoiceId,
    service: r.service,
    chainId: Number(r.chain_id),
    token: r.token,
    address: r.address,
    salt: r.salt,
    payout: r.payout,
    units: BigInt(r.units),
    watchUntil: new Date(Number(r.watch_until)),
    state: r.state as Deposit['state'],
    createdAt: new Date(Number(r.created_at)),
  }
}

function rowToTransfer(r: EvmTransferRow): SeenTransfer {
  return {
    chainId: Number(r.chain_id),
    txHash: r.tx_hash,
    logIndex: Number(r.log_index),
    invoiceId: r.invoice_id as InvoiceId,
    blockNumber: BigInt(r.block_number),
    blockHash: r.block_hash,
    blockTime: new Date(Number(r.block_time)),
    amount: BigInt(r.units),
    confirmations: Number(r.confirmations),
    reportedAt: r.reported_at === null ? null : new Date(Number(r.reported_at)),
    createdAt: new Date(Number(r.created_at)),
  }
}

function rowToSweep(r: EvmSweepRow): EvmSweep {
  return {
    invoiceId: r.invoice_id as InvoiceId,
    state: r.state as EvmSweep['state'],
    txHash: r.tx_hash,
    attempts: Number(r.attempts),
    lastError: r.last_error,
    nextAt: new Date(Number(r.next_at)),
  }
}

export class KyselyEvmRepo implements EvmRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard
  readonly #dialect: SqlDialect

  constructor(db: Kysely<Database>, guard: Guard, dialect: SqlDialect) {
    this.#db = db
    this.#guard = guard
    this.#dialect = dialect
  }

  async setPayout(merchantId: MerchantId, service: string, address: string, now: Date): Promise<void> {
    await this.#guard(
      this.#db
        .insertInto('evm_payouts')
        .values({ merchant_id: merchantId, service, address, updated_at: now.getTime() })
        .onConflict((oc) => oc.columns(['merchant_id', 'service']).doUpdateSet({ address, updated_at: now.getTime() }))
        .execute(),
    )
  }

  async findPayout(merchantId: MerchantId, service: string): Promise<string | undefined> {
    const row = await this.#guard(
      this.#db
        .selectFrom('evm_payouts')
        .select('address')
        .where('merchant_id', '=', merchantId)
        .where('service', '=', service)
        .executeTakeFirst(),
    )
    return row?.address
  }

  async insertDeposit(d: Deposit): Promise<void> {
    await this.#guard(
      this.#db
        .insertInto('evm_deposits')
        .values({
          invoice_id: d.invoiceId,
          service: d.service,
          chain_id: d.chainId,
          token: d.token,
          address: d.address,
          salt: d.salt,
          payout: d.payout,
          units: d.units.toString(),
          watch_until: d.watchUntil.getTime(),
          state: d.state,
          created_at: d.createdAt.getTime(),
        })
        .execute(),
    )
  }

  async findDeposit(invoiceId: InvoiceId): Promise<Deposit | undefined> {
    const row = await this.#guard(
      this.#db.selectFrom('evm_deposits').selectAll().where('invoice_id', '=', invoiceId).executeTakeFirst(),
    )
    return row && rowToDeposit(row)
  }

  async listWatching(service: string, now: Date, after: string, limit: number): Promise<Deposit[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('evm_deposits')
        .selectAll()
        .where('service', '=', service)
        .where('state', '=', 'watching')
        .where('watch_until', '>=', now.getTime())
        .where('address', '>', after)
        .orderBy('address')
        .limit(limit)
        .execute(),
    )
    return rows.map(rowToDeposit)
  }

  async setDepositState(invoiceId: InvoiceId, state: Deposit['state']): Promise<void> {
    await this.#guard(this.#db.updateTable('evm_deposits').set({ state }).where('invoice_id', '=', invoiceId).execute())
  }

  async takeCursor(
    service: string,
    owner: string,
    now: Date,
    until: Date,
    initialBlock: bigint,
  ): Promise<DetectorCursor | undefined> {
    await this.#guard(
      this.#db
        .insertInto('evm_cursors')
        .values({
          service,
          chain_id: 0,
          token: '',
          next_block: Number(initialBlock),
          lease_owner: null,
          lease_until: 0,
          read_until: 0,
          updated_at: now.getTime(),
        })
        .onConflict((oc) => oc.column('service').doNothing())
        .execute(),
    )
    const taken = await this.#guard(
      this.#db
        .updateTable('evm_cursors')
        .set({ lease_owner: owner, lease_until: until.getTime() })
        .where('service', '=', service)
        .where((eb) => eb.or([eb('lease_owner', '=', owner), eb('lease_until', '<', now.getTime())]))
        .executeTakeFirst(),
    )
    if (taken.numUpdatedRows === 0n) return undefined
    const row = await this.#guard(
      this.#db.selectFrom('evm_cursors').select('next_block').where('service', '=', service).executeTakeFirstOrThrow(),
    )
    return { service, nextBlock: BigInt(row.next_block) }
  }

  async releaseCursor(service: string, owner: string): Promise<void> {
    await this.#guard(
      this.#db
        .updateTable('evm_cursors')
        .set({ lease_owner: null, lease_until: 0 })
        .where('service', '=', service)
        .where('lease_owner', '=', owner)
        .execute(),
    )
  }

  async advanceCursor(
    service: string,
    owner: string,
    from: bigint,
    to: bigint,
    readUntil: Date,
    now: Date,
  ): Promise<boolean> {
    const result = await this.#guard(
      this.#db
        .updateTable('evm_cursors')
        .set({ next_block: Number(to), read_until: readUntil.getTime(), updated_at: now.getTime() })
        .where('service', '=', service)
        .where('lease_owner', '=', owner)
        .where('next_block', '=', Number(from))
        .executeTakeFirst(),
    )
    return result.numUpdatedRows > 0n
  }

  async insertTransfer(t: SeenTransfer): Promise<boolean> {
    const result = await this.#guard(
      this.#db
        .insertInto('evm_transfers')
        .values({
          chain_id: t.chainId,
          tx_hash: t.txHash,
          log_index: t.logIndex,
          invoice_id: t.invoiceId,
          block_number: Number(t.blockNumber),
          block_hash: t.blockHash,
          block_time: t.blockTime.getTime(),
          units: t.amount.toString(),
          confirmations: t.confirmations,
          reported_at: t.reportedAt === null ? null : t.reportedAt.getTime(),
          created_at: t.createdAt.getTime(),
        })
        .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
        .executeTakeFirst(),
    )
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n
  }

  #transfer(t: SeenTransfer) {
    return this.#db
      .updateTable('evm_transfers')
      .where('chain_id', '=', t.chainId)
      .where('tx_hash', '=', t.txHash)
      .where('log_index', '=', t.logIndex)
  }

  async updateConfirmations(t: SeenTransfer, confirmations: number): Promise<void> {
    await this.#guard(this.#transfer(t).set({ confirmations }).execute())
  }

  async deleteTransfer(t: SeenTransfer): Promise<void> {
    await this.#guard(
      this.#db
        .deleteFrom('evm_transfers')
        .where('chain_id', '=', t.chainId)
        .where('tx_hash', '=', t.txHash)
        .where('log_index', '=', t.logIndex)
        .execute(),
    )
  }

  async markReported(t: SeenTransfer, now: Date): Promise<void> {
    await this.#guard(this.#transfer(t).set({ reported_at: now.getTime() }).execute())
  }

  async listTransfers(invoiceId: InvoiceId): Promise<SeenTransfer[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('evm_transfers')
        .selectAll()
        .where('invoice_id', '=', invoiceId)
        .orderBy('block_number')
        .orderBy('log_index')
        .execute(),
    )
    return rows.map(rowToTransfer)
  }

  async listUnconfirmed(service: string, required: number): Promise<SeenTransfer[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('evm_transfers as t')
        .innerJoin('evm_deposits as d', 'd.invoice_id', 't.invoice_id')
        .selectAll('t')
        .where('d.service', '=', service)
        .where('t.confirmations', '<', required)
        .orderBy('t.block_number')
        .execute(),
    )
    return rows.map(rowToTransfer)
  }

  async listUnreported(service: string, required: number, now: Date, limit: number): Promise<InvoiceId[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('evm_transfers as t')
        .innerJoin('evm_deposits as d', 'd.invoice_id', 't.invoice_id')
        .innerJoin('invoices as i', 'i.id', 't.invoice_id')
        .select('t.invoice_id')
        .distinct()
        .where('d.service', '=', service)
        .where('t.confirmations', '>=', required)
        .where('t.reported_at', 'is', null)
        .where((eb) =>
          eb.or([
            eb('i.status', 'in', ['expired', 'failed']),
            eb.and([
              eb('i.status', '=', 'pending'),
              eb('i.expires_at', '<=', now.getTime()),
              eb('i.payment_seen_at', 'is', null),
            ]),
          ]),
        )
        .limit(limit)
        .execute(),
    )
    return rows.map((r) => r.invoice_id as InvoiceId)
  }

  async addSweep(invoiceId: InvoiceId, now: Date): Promise<void> {
    await this.#guard(
      this.#db
        .insertInto('evm_sweeps')
        .values({
          invoice_id: invoiceId,
          state: 'due',
          tx_hash: null,
          units: null,
          attempts: 0,
          last_error: null,
          next_at: now.getTime(),
          updated_at: now.getTime(),
        })
        .onConflict((oc) => oc.column('invoice_id').doNothing())
        .execute(),
    )
  }

  async claimSweeps(now: Date, limit: number, retryAt: Date): Promise<EvmSweep[]> {
    let query = this.#db
      .selectFrom('evm_sweeps')
      .selectAll()
      .where('state', '=', 'due')
      .where('next_at', '<=', now.getTime())
      .orderBy('next_at')
      .limit(limit)
    if (this.#dialect === 'postgres') query = query.forUpdate().skipLocked()
    const rows = await this.#guard(query.execute())
    const claimed: EvmSweep[] = []
    for (const r of rows) {
      const moved = await this.#guard(
        this.#db
          .updateTable('evm_sweeps')
          .set({ next_at: retryAt.getTime(), attempts: Number(r.attempts) + 1, updated_at: now.getTime() })
          .where('invoice_id', '=', r.invoice_id)
          .where('next_at', '=', r.next_at)
          .executeTakeFirst(),
      )
      if (moved.numUpdatedRows > 0n) claimed.push({ ...rowToSweep(r), attempts: Number(r.attempts) + 1 })
    }
    return claimed
  }

  async finishSweep(invoiceId: InvoiceId, txHash: string, amount: bigint, now: Date): Promise<void> {
    await this.#guard(
      this.#db
        .updateTable('evm_sweeps')
        .set({ state: 'done', tx_hash: txHash, units: amount.toString(), last_error: null, updated_at: now.getTime() })
        .where('invoice_id', '=', invoiceId)
        .execute(),
    )
  }

  async failSweep(invoiceId: InvoiceId, error: string, nextAt: Date, now: Date): Promise<void> {
    await this.#guard(
      this.#db
        .updateTable('evm_sweeps')
        .set({ last_error: error.slice(0, 500), next_at: nextAt.getTime(), updated_at: now.getTime() })
        .where('invoice_id', '=', invoiceId)
        .where('state', '=', 'due')
        .execute(),
    )
  }

  async sweepStats(): Promise<{ readonly due: number; readonly failing: number }> {
    const row = await this.#guard(
      this.#db
        .selectFrom('evm_sweeps')
        .select((eb) => [
          eb.fn.countAll<number | string>().as('due'),
          eb.fn.count<number | string>('last_error').as('failing'),
        ])
        .where('state', '=', 'due')
        .executeTakeFirstOrThrow(),
    )
    return { due: Number(row.due), failing: Number(row.failing) }
  }

  async findSweep(invoiceId: InvoiceId): Promise<EvmSweep | undefined> {
    const row = await this.#guard(
      this.#db.selectFrom('evm_sweeps').selectAll().where('invoice_id', '=', invoiceId).executeTakeFirst(),
    )
    return row && rowToSweep(row)
  }
}
