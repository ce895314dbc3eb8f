/**
 * The dashboard's daily totals over Kysely (docs/dashboard.md#daily-totals), the same SQL on SQLite and PostgreSQL.
 *
 * Writes: the invoice and refund repos hand their changes (domain/daily-totals.ts) to a sink. In a transaction the
 * sink only collects them; `flushTotals` adds them up per row and writes each row once, in key order, just before
 * the transaction commits: the expiry sweep's batch of 200 is a few statements, the rows' locks (PostgreSQL) are held
 * for the shortest time, and two transactions always take them in the same order (no deadlock between them).
 */
import { sql, type Kysely } from 'kysely'
import type { DailyTotals, TotalsDelta } from '../../../domain/daily-totals.js'
import { DAY_MS, lastClosedDay } from '../../../domain/daily-totals.js'
import type { MerchantId } from '../../../domain/ids.js'
import type { Minor } from '../../../domain/money.js'
import type { DailyTotalsRepo } from '../../../ports/store.js'
import type { DailyTotalsRow, Database } from '../schema.js'
import type { Guard } from '../unavailable.js'

type Figures = Omit<DailyTotalsRow, 'merchant_id' | 'day' | 'currency'>

const FIGURES: Readonly<Record<keyof Figures, keyof TotalsDelta['add']>> = {
  now_hold: 'hold',
  now_paid: 'paid',
  now_failed: 'failed',
  now_expired: 'expired',
  paid_count: 'paidCount',
  paid_amount: 'paidAmount',
  credited_amount: 'creditedAmount',
  refunded_amount: 'refundedAmount',
}
const FIGURE_COLUMNS = Object.keys(FIGURES) as (keyof Figures)[]

/** Where a repo hands the totals its write moved. */
export interface TotalsSink {
  record(deltas: readonly TotalsDelta[]): Promise<void>
}

/** A transaction's sink: collects, written by flushTotals before the commit. */
export class TotalsBuffer implements TotalsSink {
  readonly deltas: TotalsDelta[] = []
  record(deltas: readonly TotalsDelta[]): Promise<void> {
    this.deltas.push(...deltas)
    return Promise.resolve()
  }
}

/** Outside a transaction (no caller does that today): each change written at once. */
export function immediateTotals(db: Kysely<Database>, guard: Guard): TotalsSink {
  return { record: (deltas) => guard(flushTotals(db, deltas)) }
}

/** Adds the changes up per (merchant, day, currency) and upserts each row once, in key order. */
export async function flushTotals(db: Kysely<Database>, deltas: readonly TotalsDelta[]): Promise<void> {
  if (deltas.length === 0) return
  const rows = new Map<string, DailyTotalsRow>()
  for (const d of deltas) {
    const key = JSON.stringify([d.merchantId, d.day, d.currency])
    let row = rows.get(key)
    if (row === undefined) {
      row = { merchant_id: d.merchantId, day: d.day, currency: d.currency, ...zeroFigures() }
      rows.set(key, row)
    }
    for (const column of FIGURE_COLUMNS) row[column] += d.add[FIGURES[column]] ?? 0
  }
  const ordered = [...rows.values()].sort(
    (a, b) => cmp(a.merchant_id, b.merchant_id) || a.day - b.day || cmp(a.currency, b.currency),
  )
  for (const row of ordered) {
    const moved = FIGURE_COLUMNS.filter((c) => row[c] !== 0)
    if (moved.length === 0) continue
    await db
      .insertInto('daily_totals')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['merchant_id', 'day', 'currency'])
          .doUpdateSet((eb) =>
            Object.fromEntries(moved.map((c) => [c, eb(eb.ref(`daily_totals.${c}`), '+', eb.ref(`excluded.${c}`))])),
          ),
      )
      .execute()
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function zeroFigures(): Figures {
  return Object.fromEntries(FIGURE_COLUMNS.map((c) => [c, 0])) as unknown as Figures
}

export class KyselyDailyTotalsRepo implements DailyTotalsRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard

  constructor(db: Kysely<Database>, guard: Guard) {
    this.#db = db
    this.#guard = guard
  }

  async list(merchantId: MerchantId, fromDay: number, toDay: number): Promise<DailyTotals[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('daily_totals')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('day', '>=', fromDay)
        .where('day', '<=', toDay)
        .execute(),
    )
    return rows.map((r) => ({
      day: Number(r.day),
      currency: r.currency,
      hold: Number(r.now_hold),
      paid: Number(r.now_paid),
      failed: Number(r.now_failed),
      expired: Number(r.now_expired),
      paidCount: Number(r.paid_count),
      paidAmount: Number(r.paid_amount) as Minor,
      creditedAmount: Number(r.credited_amount) as Minor,
      refundedAmount: Number(r.refunded_amount) as Minor,
    }))
  }

  async createdByDay(merchantId: MerchantId, fromDay: number, toDay: number): Promise<Map<number, number>> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('daily_created')
        .select(['day', 'created'])
        .where('merchant_id', '=', merchantId)
        .where('day', '>=', fromDay)
        .where('day', '<=', toDay)
        .execute(),
    )
    return new Map(rows.map((r) => [Number(r.day), Number(r.created)]))
  }

  async countCreated(merchantId: MerchantId, from: Date, until: Date): Promise<number> {
    const row = await this.#guard(
      this.#db
        .selectFrom('invoices')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('merchant_id', '=', merchantId)
        .where('created_at', '>=', from.getTime())
        .where('created_at', '<', until.getTime())
        .executeTakeFirstOrThrow(),
    )
    return Number(row.n)
  }

  async countUnsweptExpired(merchantId: MerchantId, createdFrom: Date, now: Date): Promise<number> {
    // the sweeper's own index (status, expires_at): the range holds only what it has not swept yet
    const row = await this.#guard(
      this.#db
        .selectFrom('invoices')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'pending')
        .where('expires_at', '<=', now.getTime())
        .where('payment_seen_at', 'is', null)
        .where('merchant_id', '=', merchantId)
        .where('created_at', '>=', createdFrom.getTime())
        .executeTakeFirstOrThrow(),
    )
    return Number(row.n)
  }

  async keepCreated(merchantId: MerchantId, counts: ReadonlyMap<number, number>): Promise<void> {
    if (counts.size === 0) return
    await this.#guard(
      this.#db
        .insertInto('daily_created')
        .values([...counts].map(([day, created]) => ({ merchant_id: merchantId, day, created })))
        .onConflict((oc) => oc.columns(['merchant_id', 'day']).doNothing())
        .execute(),
    )
  }
}

/**
 * Recomputes every daily total from the invoices and refunds there are (migration 009's backfill; the scale bench
 * after seeding). Replaces what the tables held; run it where nothing else writes (a migration holds the lock).
 */
export async function rebuildDailyTotals(db: Kysely<any>, now: Date): Promise<void> {
  const day = sql`created_at / ${sql.lit(DAY_MS)}`
  const paidDay = sql`coalesce(paid_at, updated_at) / ${sql.lit(DAY_MS)}`
  const refundDay = sql`updated_at / ${sql.lit(DAY_MS)}`
  const count = (status: string) => sql`sum(case when status = ${sql.lit(status)} then 1 else 0 end)`
  await sql`delete from daily_totals`.execute(db)
  await sql`delete from daily_created`.execute(db)
  // SQLite: an INSERT … SELECT with ON CONFLICT needs the SELECT's WHERE (its parser would read ON as a join's)
  await sql`insert into daily_totals
      (merchant_id, day, currency, now_hold, now_paid, now_failed, now_expired,
       paid_count, paid_amount, credited_amount, refunded_amount)
    select merchant_id, ${day}, currency, ${count('hold')}, ${count('paid')}, ${count('failed')}, ${count('expired')},
      0, 0, 0, 0
    from invoices where true group by merchant_id, ${day}, currency`.execute(db)
  await sql`insert into daily_totals
      (merchant_id, day, currency, now_hold, now_paid, now_failed, now_expired,
       paid_count, paid_amount, credited_amount, refunded_amount)
    select merchant_id, ${paidDay}, currency, 0, 0, 0, 0,
      count(*), sum(amount), sum(coalesce(credited, amount)), 0
    from invoices where status = 'paid' group by merchant_id, ${paidDay}, currency
    on conflict (merchant_id, day, currency) do update set
      paid_count = excluded.paid_count, paid_amount = excluded.paid_amount, credited_amount = excluded.credited_amount`.execute(
    db,
  )
  await sql`insert into daily_totals
      (merchant_id, day, currency, now_hold, now_paid, now_failed, now_expired,
       paid_count, paid_amount, credited_amount, refunded_amount)
    select merchant_id, ${refundDay}, currency, 0, 0, 0, 0, 0, 0, 0, sum(amount)
    from refunds where status = 'succeeded' group by merchant_id, ${refundDay}, currency
    on conflict (merchant_id, day, currency) do update set refunded_amount = excluded.refunded_amount`.execute(db)
  const closedUntil = (lastClosedDay(now) + 1) * DAY_MS
  await sql`insert into daily_created (merchant_id, day, created)
    select merchant_id, ${day}, count(*) from invoices where created_at < ${closedUntil}
    group by merchant_id, ${day}`.execute(db)
}
