/**
 * The operator console's reads across every merchant (docs/dashboard.md#operator-console), over Kysely for SQLite and
 * PostgreSQL. Each answers from an index whatever the number of invoices and deliveries: counts stop at a cap.
 */
import { sql, type Kysely } from 'kysely'
import type { Invoice } from '../../../domain/invoice.js'
import type { ConsoleReader, DeliveryHealth, MerchantSummary } from '../../../ports/console-store.js'
import {
  INVOICE_COLUMNS,
  MERCHANT_COLUMNS,
  bothOrderSides,
  rowToInvoice,
  rowToMerchant,
  type Database,
} from '../schema.js'
import type { Guard } from '../unavailable.js'

export class KyselyConsoleReader implements ConsoleReader {
  readonly #db: Kysely<Database>
  readonly #guard: Guard

  constructor(db: Kysely<Database>, guard: Guard) {
    this.#db = db
    this.#guard = guard
  }

  /** Two counts per merchant, each a seek on api_keys_merchant_idx / users_merchant_idx. */
  async merchantSummaries(): Promise<MerchantSummary[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('merchants as m')
        .select(MERCHANT_COLUMNS.map((c) => `m.${c}` as const))
        .select((eb) => [
          eb
            .selectFrom('api_keys as k')
            .select(eb.fn.countAll<number | string>().as('n'))
            .whereRef('k.merchant_id', '=', 'm.id')
            .where('k.revoked_at', 'is', null)
            .as('active_keys'),
          eb
            .selectFrom('users as u')
            .select(eb.fn.countAll<number | string>().as('n'))
            .whereRef('u.merchant_id', '=', 'm.id')
            .as('user_count'),
        ])
        .orderBy('m.created_at', 'asc')
        .orderBy('m.id', 'asc')
        .execute(),
    )
    return rows.map((r) => ({
      merchant: rowToMerchant(r),
      activeKeys: Number(r.active_keys ?? 0),
      users: Number(r.user_count ?? 0),
    }))
  }

  /**
   * `merchant_id IN (every merchant)` turns the lookup into one seek per merchant of each order index (the live
   * invoices', invoices_live_order_key, and the others', invoices_order_not_live_idx: migration 012): no index on
   * order_id alone (which every create would pay for) and no scan of the invoices.
   */
  async invoicesByOrderId(orderId: string, limit: number): Promise<Invoice[]> {
    const rows = await this.#guard(
      bothOrderSides((side) =>
        this.#db
          .selectFrom('invoices')
          .select(INVOICE_COLUMNS)
          .where('merchant_id', 'in', this.#db.selectFrom('merchants').select('id'))
          .where('order_id', '=', orderId)
          .where(side),
      )
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute(),
    )
    return rows.map(rowToInvoice)
  }

  /**
   * Pending and failed deliveries are ranges of deliveries_due_idx (status, next_attempt_at), counted from the index
   * alone up to `cap`. Which pending ones have failed, and where they go, needs their rows: the first `window` of the
   * range (the next due) are read once, grouped by endpoint; the oldest due is its first entry. A backlog of any size
   * costs at most that.
   */
  async deliveryHealth(now: Date, cap: number, window: number, endpoints: number): Promise<DeliveryHealth> {
    const db = this.#db
    const counted = (status: 'pending' | 'failed') =>
      this.#guard(
        db
          .selectFrom(
            db
              .selectFrom('deliveries')
              .select(sql`1`.as('one'))
              .where('status', '=', status)
              .limit(cap)
              .as('c'),
          )
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow(),
      )
    const nextDue = db
      .selectFrom('deliveries')
      .select(['merchant_id', 'url', 'attempt_count'])
      .where('status', '=', 'pending')
      .orderBy('status')
      .orderBy('next_attempt_at')
      .limit(window)
      .as('p')
    const [pending, dead, oldest, groups] = await Promise.all([
      counted('pending'),
      counted('failed'),
      this.#guard(
        db
          .selectFrom('deliveries')
          .select('next_attempt_at')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now.getTime())
          .orderBy('status')
          .orderBy('next_attempt_at')
          .limit(1)
          .executeTakeFirst(),
      ),
      this.#guard(
        db
          .selectFrom(nextDue)
          .select((eb) => [
            'p.merchant_id',
            'p.url',
            eb.fn.sum<number | string>(sql`case when p.attempt_count > 0 then 1 else 0 end`).as('failing'),
          ])
          .groupBy(['p.merchant_id', 'p.url'])
          .execute(),
      ),
    ])
    const failing = groups
      .map((g) => ({ merchantId: g.merchant_id, url: g.url, failing: Number(g.failing) }))
      .filter((g) => g.failing > 0)
    return {
      pending: Number(pending.n),
      failing: failing.reduce((sum, g) => sum + g.failing, 0),
      dead: Number(dead.n),
      oldestDueAt: oldest?.next_attempt_at == null ? null : new Date(Number(oldest.next_attempt_at)),
      cap,
      window,
      failingEndpoints: failing
        .sort((x, y) => y.failing - x.failing || (x.url < y.url ? -1 : x.url > y.url ? 1 : 0))
        .slice(0, endpoints),
    }
  }

  /** A range of refunds_check_idx (next_check_at). */
  async refundDueStats(now: Date): Promise<{ readonly due: number; readonly oldestDueAt: Date | null }> {
    const row = await this.#guard(
      this.#db
        .selectFrom('refunds')
        .select((eb) => [
          eb.fn.countAll<number | string>().as('due'),
          eb.fn.min<number | string | null>('next_check_at').as('oldest'),
        ])
        .where('next_check_at', '<=', now.getTime())
        .executeTakeFirstOrThrow(),
    )
    return { due: Number(row.due), oldestDueAt: row.oldest === null ? null : new Date(Number(row.oldest)) }
  }
}
