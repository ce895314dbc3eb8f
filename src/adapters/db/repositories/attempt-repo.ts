/**
 * Checkout attempts at acquirers over Kysely (docs/providers.md#attempts): the same queries serve SQLite and
 * PostgreSQL; the reconciliation claim locks its rows `FOR UPDATE SKIP LOCKED` on PostgreSQL (SQLite has one writer).
 */
import type { Kysely } from 'kysely'
import type { InvoiceId } from '../../../domain/ids.js'
import type { Minor } from '../../../domain/money.js'
import type { AttemptState, LateAction, PaymentAttempt } from '../../../domain/payment-attempt.js'
import type { AttemptRepo } from '../../../ports/store.js'
import type { Database, PaymentAttemptRow, SqlDialect } from '../schema.js'
import type { Guard } from '../unavailable.js'

const ATTEMPT_COLUMNS = [
  'id',
  'invoice_id',
  'attempt',
  'provider',
  'checkout_id',
  'payment_id',
  'redirect_url',
  'state',
  'amount',
  'late_action',
  'next_check_at',
  'checks',
  'version',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof PaymentAttemptRow)[]

const num = (v: number | string | null): number | null => (v === null ? null : Number(v))

function rowToAttempt(r: PaymentAttemptRow): PaymentAttempt {
  const nextCheckAt = num(r.next_check_at)
  const amount = num(r.amount)
  return {
    id: r.id,
    invoiceId: r.invoice_id as InvoiceId,
    attempt: Number(r.attempt),
    provider: r.provider,
    checkoutId: r.checkout_id,
    paymentId: r.payment_id,
    redirectUrl: r.redirect_url,
    state: r.state as AttemptState,
    amount: amount === null ? null : (amount as Minor),
    lateAction: r.late_action as LateAction | null,
    nextCheckAt: nextCheckAt === null ? null : new Date(nextCheckAt),
    checks: Number(r.checks),
    version: Number(r.version),
    createdAt: new Date(Number(r.created_at)),
    updatedAt: new Date(Number(r.updated_at)),
  }
}

function attemptToRow(a: PaymentAttempt): PaymentAttemptRow {
  return {
    id: a.id,
    invoice_id: a.invoiceId,
    attempt: a.attempt,
    provider: a.provider,
    checkout_id: a.checkoutId,
    payment_id: a.paymentId,
    redirect_url: a.redirectUrl,
    state: a.state,
    amount: a.amount,
    late_action: a.lateAction,
    next_check_at: a.nextCheckAt === null ? null : a.nextCheckAt.getTime(),
    checks: a.checks,
    version: a.version,
    created_at: a.createdAt.getTime(),
    updated_at: a.updatedAt.getTime(),
  }
}

export class KyselyAttemptRepo implements AttemptRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard
  readonly #dialect: SqlDialect

  constructor(db: Kysely<Database>, guard: Guard, dialect: SqlDialect) {
    this.#db = db
    this.#guard = guard
    this.#dialect = dialect
  }

  async listByInvoice(invoiceId: InvoiceId): Promise<PaymentAttempt[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('payment_attempts')
        .select(ATTEMPT_COLUMNS)
        .where('invoice_id', '=', invoiceId)
        .orderBy('attempt', 'asc')
        .execute(),
    )
    return rows.map(rowToAttempt)
  }

  async find(invoiceId: InvoiceId, attempt: number): Promise<PaymentAttempt | undefined> {
    const row = await this.#guard(
      this.#db
        .selectFrom('payment_attempts')
        .select(ATTEMPT_COLUMNS)
        .where('invoice_id', '=', invoiceId)
        .where('attempt', '=', attempt)
        .executeTakeFirst(),
    )
    return row === undefined ? undefined : rowToAttempt(row)
  }

  async findByAcquirerId(
    provider: string,
    ids: { paymentId: string | null; checkoutId: string | null },
  ): Promise<PaymentAttempt | undefined> {
    for (const [column, value] of [
      ['payment_id', ids.paymentId],
      ['checkout_id', ids.checkoutId],
    ] as const) {
      if (value === null) continue
      const row = await this.#guard(
        this.#db
          .selectFrom('payment_attempts')
          .select(ATTEMPT_COLUMNS)
          .where('provider', '=', provider)
          .where(column, '=', value)
          .executeTakeFirst(),
      )
      if (row !== undefined) return rowToAttempt(row)
    }
    return undefined
  }

  async insert(attempt: PaymentAttempt): Promise<'inserted' | 'exists'> {
    const result = await this.#guard(
      this.#db
        .insertInto('payment_attempts')
        .values(attemptToRow(attempt))
        .onConflict((oc) => oc.columns(['invoice_id', 'attempt']).doNothing())
        .executeTakeFirst(),
    )
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1 ? 'inserted' : 'exists'
  }

  async update(attempt: PaymentAttempt, expectedVersion: number): Promise<boolean> {
    const { id: _id, invoice_id: _inv, attempt: _n, created_at: _c, ...row } = attemptToRow(attempt)
    const result = await this.#guard(
      this.#db
        .updateTable('payment_attempts')
        .set({ ...row, version: expectedVersion + 1 })
        .where('id', '=', attempt.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst(),
    )
    return Number(result.numUpdatedRows) === 1
  }

  async claimDue(now: Date, limit: number, reschedule: (attempt: PaymentAttempt) => Date): Promise<PaymentAttempt[]> {
    let query = this.#db
      .selectFrom('payment_attempts')
      .select(ATTEMPT_COLUMNS)
      .where('next_check_at', '<=', now.getTime())
      .orderBy('next_check_at', 'asc')
      .orderBy('id', 'asc')
      .limit(limit)
    // PostgreSQL: concurrent instances skip each other's claimed rows: each attempt is asked about once
    if (this.#dialect === 'postgres') query = query.forUpdate().skipLocked()
    const due = (await this.#guard(query.execute())).map(rowToAttempt)
    const claimed: PaymentAttempt[] = []
    for (const a of due) {
      const next: PaymentAttempt = { ...a, nextCheckAt: reschedule(a), checks: a.checks + 1 }
      if (await this.update(next, a.version)) claimed.push({ ...next, version: a.version + 1 })
    }
    return claimed
  }

  async dueStats(now: Date): Promise<{ readonly due: number; readonly oldestDueAt: Date | null }> {
    const row = await this.#guard(
      this.#db
        .selectFrom('payment_attempts')
        .select((eb) => [eb.fn.countAll<number | string>().as('due'), eb.fn.min('next_check_at').as('oldest')])
        .where('next_check_at', '<=', now.getTime())
        .executeTakeFirstOrThrow(),
    )
    const oldest = num(row.oldest as number | string | null)
    return { due: Number(row.due), oldestDueAt: oldest === null ? null : new Date(oldest) }
  }
}
