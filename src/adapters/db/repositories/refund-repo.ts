/**
 * Refunds over Kysely (docs/refunds.md): the same queries serve SQLite and PostgreSQL. The reservation's invoice lock
 * and the reconciliation claim lock rows on PostgreSQL (`FOR UPDATE`, `SKIP LOCKED`); SQLite has one writer.
 */
import type { Kysely } from 'kysely'
import type { InvoiceId, MerchantId } from '../../../domain/ids.js'
import type { Invoice } from '../../../domain/invoice.js'
import type { Minor } from '../../../domain/money.js'
import type { Refund, RefundId, RefundStatus } from '../../../domain/refund.js'
import type { RefundRepo } from '../../../ports/store.js'
import { INVOICE_COLUMNS, rowToInvoice, type Database, type RefundRow, type SqlDialect } from '../schema.js'
import type { Guard } from '../unavailable.js'
import { refundDeltas } from '../../../domain/daily-totals.js'
import type { TotalsSink } from './daily-totals-repo.js'

/** The refunds table's columns, in the order rows are written (the dashboard bench seeds rows in it too). */
export const REFUND_COLUMNS = [
  'id',
  'invoice_id',
  'merchant_id',
  'provider',
  'amount',
  'currency',
  'status',
  'reason',
  'failure_reason',
  'provider_refund_id',
  'idempotency_key',
  'request_hash',
  'checks',
  'next_check_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof RefundRow)[]

function rowToRefund(r: RefundRow): Refund {
  const next = r.next_check_at === null ? null : Number(r.next_check_at)
  return {
    id: r.id as RefundId,
    invoiceId: r.invoice_id as InvoiceId,
    merchantId: r.merchant_id as MerchantId,
    provider: r.provider,
    amount: Number(r.amount) as Minor,
    currency: r.currency,
    status: r.status as RefundStatus,
    reason: r.reason,
    failureReason: r.failure_reason,
    providerRefundId: r.provider_refund_id,
    idempotencyKey: r.idempotency_key,
    requestHash: r.request_hash,
    checks: Number(r.checks),
    nextCheckAt: next === null ? null : new Date(next),
    createdAt: new Date(Number(r.created_at)),
    updatedAt: new Date(Number(r.updated_at)),
  }
}

function refundToRow(r: Refund): RefundRow {
  return {
    id: r.id,
    invoice_id: r.invoiceId,
    merchant_id: r.merchantId,
    provider: r.provider,
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    failure_reason: r.failureReason,
    provider_refund_id: r.providerRefundId,
    idempotency_key: r.idempotencyKey,
    request_hash: r.requestHash,
    checks: r.checks,
    next_check_at: r.nextCheckAt === null ? null : r.nextCheckAt.getTime(),
    created_at: r.createdAt.getTime(),
    updated_at: r.updatedAt.getTime(),
  }
}

export class KyselyRefundRepo implements RefundRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard
  readonly #dialect: SqlDialect
  /** Where a succeeded refund's daily totals go (docs/dashboard.md#daily-totals). */
  readonly #totals: TotalsSink

  constructor(db: Kysely<Database>, guard: Guard, dialect: SqlDialect, totals: TotalsSink) {
    this.#db = db
    this.#totals = totals
    this.#guard = guard
    this.#dialect = dialect
  }

  async findById(id: RefundId): Promise<Refund | undefined> {
    const row = await this.#guard(
      this.#db.selectFrom('refunds').select(REFUND_COLUMNS).where('id', '=', id).executeTakeFirst(),
    )
    return row === undefined ? undefined : rowToRefund(row)
  }

  async listByInvoice(invoiceId: InvoiceId): Promise<Refund[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('refunds')
        .select(REFUND_COLUMNS)
        .where('invoice_id', '=', invoiceId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute(),
    )
    return rows.map(rowToRefund)
  }

  async findByKey(merchantId: MerchantId, idempotencyKey: string): Promise<Refund | undefined> {
    const row = await this.#guard(
      this.#db
        .selectFrom('refunds')
        .select(REFUND_COLUMNS)
        .where('merchant_id', '=', merchantId)
        .where('idempotency_key', '=', idempotencyKey)
        .executeTakeFirst(),
    )
    return row === undefined ? undefined : rowToRefund(row)
  }

  async findByProviderRefundId(provider: string, providerRefundId: string): Promise<Refund | undefined> {
    const row = await this.#guard(
      this.#db
        .selectFrom('refunds')
        .select(REFUND_COLUMNS)
        .where('provider', '=', provider)
        .where('provider_refund_id', '=', providerRefundId)
        .executeTakeFirst(),
    )
    return row === undefined ? undefined : rowToRefund(row)
  }

  async lockInvoice(id: InvoiceId): Promise<Invoice | undefined> {
    let query = this.#db.selectFrom('invoices').select(INVOICE_COLUMNS).where('id', '=', id)
    if (this.#dialect === 'postgres') query = query.forUpdate()
    const row = await this.#guard(query.executeTakeFirst())
    return row === undefined ? undefined : rowToInvoice({ ...row, amount: Number(row.amount) })
  }

  async insert(refund: Refund): Promise<'inserted' | 'key_exists'> {
    const result = await this.#guard(
      this.#db
        .insertInto('refunds')
        .values(refundToRow(refund))
        .onConflict((oc) => oc.columns(['merchant_id', 'idempotency_key']).doNothing())
        .executeTakeFirst(),
    )
    if (Number(result.numInsertedOrUpdatedRows ?? 0n) !== 1) return 'key_exists'
    if (refund.status === 'succeeded') await this.#totals.record(refundDeltas(refund))
    return 'inserted'
  }

  async update(refund: Refund, before: Pick<Refund, 'status' | 'updatedAt'>): Promise<boolean> {
    const expected = before.status
    const { id: _id, invoice_id: _i, merchant_id: _m, created_at: _c, ...row } = refundToRow(refund)
    const result = await this.#guard(
      this.#db
        .updateTable('refunds')
        .set(row)
        .where('id', '=', refund.id)
        .where('status', '=', expected)
        .executeTakeFirst(),
    )
    if (Number(result.numUpdatedRows) !== 1) return false
    if (refund.status === 'succeeded' && expected !== 'succeeded') await this.#totals.record(refundDeltas(refund))
    // a succeeded refund its acquirer failed afterwards leaves the day it succeeded on
    if (expected === 'succeeded' && refund.status === 'failed')
      await this.#totals.record(refundDeltas({ ...refund, updatedAt: before.updatedAt }, -1))
    return true
  }

  async claimDue(now: Date, limit: number, reschedule: (refund: Refund) => Date): Promise<Refund[]> {
    let query = this.#db
      .selectFrom('refunds')
      .select(REFUND_COLUMNS)
      .where('next_check_at', '<=', now.getTime())
      .where('status', '=', 'pending')
      .orderBy('next_check_at', 'asc')
      .orderBy('id', 'asc')
      .limit(limit)
    if (this.#dialect === 'postgres') query = query.forUpdate().skipLocked()
    const due = (await this.#guard(query.execute())).map(rowToRefund)
    const claimed: Refund[] = []
    for (const r of due) {
      const next: Refund = { ...r, nextCheckAt: reschedule(r), checks: r.checks + 1 }
      if (await this.update(next, r)) claimed.push(next)
    }
    return claimed
  }

  async armSandboxFailure(invoiceId: InvoiceId, now: Date): Promise<void> {
    await this.#guard(
      this.#db
        .insertInto('sandbox_refund_failures')
        .values({ invoice_id: invoiceId, created_at: now.getTime() })
        .onConflict((oc) => oc.column('invoice_id').doNothing())
        .execute(),
    )
  }

  async takeSandboxFailure(invoiceId: InvoiceId): Promise<boolean> {
    const result = await this.#guard(
      this.#db.deleteFrom('sandbox_refund_failures').where('invoice_id', '=', invoiceId).executeTakeFirst(),
    )
    return Number(result.numDeletedRows) > 0
  }
}
