/**
 * Webhook deliveries and their attempts over Kysely: the same queries serve SQLite and PostgreSQL. The one
 * difference is the claim's row locking (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has one writer and
 * BEGIN IMMEDIATE, so its select-then-update in one transaction is already exclusive).
 */
import { sql, type ExpressionBuilder, type Kysely } from 'kysely'
import {
  fairShareCandidates,
  shareOf,
  takeBeyondShare,
  takeFairShare,
  type ClaimedDelivery,
  type ClaimShare,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryStatus,
  type DeliveryWithAttempts,
  type WebhookEventType,
} from '../../../domain/delivery.js'
import type { DeliveryId, EventId, InvoiceId, MerchantId } from '../../../domain/ids.js'
import type { DeliveryListQuery, DeliveryProgress, DeliveryQueueStats, DeliveryRepo } from '../../../ports/store.js'
import type { Database, DeliveryAttemptRow, DeliveryRow, SqlDialect } from '../schema.js'
import type { Guard } from '../unavailable.js'

const DELIVERY_COLUMNS = [
  'id',
  'event_id',
  'invoice_id',
  'merchant_id',
  'url',
  'type',
  'status',
  'attempt_count',
  'next_attempt_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof DeliveryRow)[]
/** What a claim chooses by: whose a due delivery is and when it came due. Only the chosen are read in full. */
const CANDIDATE_COLUMNS = ['id', 'merchant_id', 'next_attempt_at'] as const satisfies readonly (keyof DeliveryRow)[]
interface Candidate {
  readonly id: string
  readonly merchantId: MerchantId
}
const candidate = (r: Pick<DeliveryRow, 'id' | 'merchant_id'>): Candidate => ({
  id: r.id,
  merchantId: r.merchant_id as MerchantId,
})
const ATTEMPT_COLUMNS = [
  'id',
  'delivery_id',
  'at',
  'status_code',
  'latency_ms',
  'error',
] as const satisfies readonly (keyof DeliveryAttemptRow)[]

type DeliveryRead = Pick<DeliveryRow, (typeof DELIVERY_COLUMNS)[number]>

function rowToDelivery(r: DeliveryRead): Delivery {
  return {
    id: r.id as DeliveryId,
    eventId: r.event_id as EventId,
    invoiceId: r.invoice_id as InvoiceId,
    merchantId: r.merchant_id as MerchantId,
    url: r.url,
    type: r.type as WebhookEventType,
    status: r.status as DeliveryStatus,
    attemptCount: r.attempt_count,
    nextAttemptAt: r.next_attempt_at === null ? null : new Date(r.next_attempt_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  }
}

function rowToAttempt(r: Pick<DeliveryAttemptRow, (typeof ATTEMPT_COLUMNS)[number]>): DeliveryAttempt {
  return { id: r.id, at: new Date(r.at), statusCode: r.status_code, latencyMs: r.latency_ms, error: r.error }
}

/**
 * No earlier delivery (by created_at, then id) of the same invoice is still pending: docs/webhooks.md#ordering, "a later event
 * waits until the earlier one succeeded or was given up". A covering seek in deliveries_invoice_idx.
 */
function noEarlierPending(eb: ExpressionBuilder<Database & { d: DeliveryRow }, 'd'>) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('deliveries as p')
        .select(sql<number>`1`.as('one'))
        .whereRef('p.invoice_id', '=', 'd.invoice_id')
        .where('p.status', '=', 'pending')
        // a row value, so the range is a seek in deliveries_invoice_idx (invoice_id, status, created_at, id)
        .where((w) => w(w.refTuple('p.created_at', 'p.id'), '<', w.refTuple('d.created_at', 'd.id'))),
    ),
  )
}

/**
 * Due now: pending, next_attempt_at <= now, no live lease (one that ran out belongs to a dispatcher that died
 * mid-attempt), and no earlier delivery of the invoice pending.
 */
function dueAt(nowMs: number) {
  return (eb: ExpressionBuilder<Database & { d: DeliveryRow }, 'd'>) =>
    eb.and([
      eb('d.status', '=', 'pending'),
      eb('d.next_attempt_at', '<=', nowMs),
      eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', nowMs)]),
      noEarlierPending(eb),
    ])
}

export class KyselyDeliveryRepo implements DeliveryRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard
  readonly #dialect: SqlDialect

  constructor(db: Kysely<Database>, guard: Guard, dialect: SqlDialect) {
    this.#db = db
    this.#guard = guard
    this.#dialect = dialect
  }

  async insert(d: Delivery, payload: string): Promise<void> {
    await this.#guard(
      this.#db
        .insertInto('deliveries')
        .values({
          id: d.id,
          event_id: d.eventId,
          invoice_id: d.invoiceId,
          merchant_id: d.merchantId,
          url: d.url,
          type: d.type,
          payload,
          status: d.status,
          attempt_count: d.attemptCount,
          next_attempt_at: d.nextAttemptAt === null ? null : d.nextAttemptAt.getTime(),
          lease_until: null,
          created_at: d.createdAt.getTime(),
          updated_at: d.updatedAt.getTime(),
        })
        .execute(),
    )
  }

  /**
   * Each merchant's first `perMerchant` due deliveries (at most the free slots; enough for any merchant's share),
   * oldest due first, but none of merchants already at their share (`shareOf`): a skip scan finds the merchants
   * with pending deliveries (one seek each, however many rows each has), then a seek per merchant in
   * deliveries_merchant_due_idx. So however long one merchant's backlog, the others' deliveries are found.
   */
  async #dueByMerchant(nowMs: number, share: ClaimShare): Promise<Candidate[]> {
    const full = [...share.inFlight].filter(([m, n]) => n >= shareOf(share, m)).map(([m]) => m)
    const merchantDue = (eb: ExpressionBuilder<Database & { pm: { id: string | null } }, 'pm'>) =>
      eb
        .selectFrom('deliveries as d')
        .where(dueAt(nowMs))
        .whereRef('d.merchant_id', '=', 'pm.id')
        .orderBy('d.next_attempt_at', 'asc')
        // no merchant can take more than the free slots
        .limit(Math.min(share.perMerchant, share.limit))
    const merchants = this.#db
      .withRecursive('pm(id)', (db) =>
        db
          .selectFrom('deliveries')
          .select((eb) => eb.fn.min<string | null>('merchant_id').as('id'))
          .where('status', '=', 'pending')
          .unionAll((db) =>
            db
              .selectFrom('pm')
              .select((eb) =>
                eb
                  .selectFrom('deliveries as n')
                  .select((n) => n.fn.min('n.merchant_id').as('next'))
                  .where('n.status', '=', 'pending')
                  .whereRef('n.merchant_id', '>', 'pm.id')
                  .as('id'),
              )
              .where('pm.id', 'is not', null),
          ),
      )
      .selectFrom('pm')
      .$if(full.length > 0, (q) => q.where('pm.id', 'not in', full))
    const candidates =
      this.#dialect === 'postgres'
        ? merchants.innerJoinLateral(
            (eb) =>
              merchantDue(eb)
                .select(CANDIDATE_COLUMNS.map((c) => `d.${c}` as const))
                .forUpdate()
                .skipLocked()
                .as('c'),
            (join) => join.onTrue(),
          )
        : // SQLite has no LATERAL; the correlated IN is the same seek per merchant (one writer: nothing to lock)
          merchants.innerJoin('deliveries as c', (join) =>
            join.on((eb) => eb('c.id', 'in', merchantDue(eb).select('d.id'))),
          )
    const rows = await this.#guard(
      candidates
        .select(CANDIDATE_COLUMNS.map((c) => `c.${c}` as const))
        .orderBy('c.next_attempt_at', 'asc')
        .orderBy('c.id', 'asc')
        .limit(fairShareCandidates(share))
        .execute(),
    )
    return rows.map(candidate)
  }

  async nextAttemptAfter(now: Date): Promise<Date | null> {
    // the (status, next_attempt_at) index: one seek
    const row = await this.#guard(
      this.#db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('at'))
        .where('status', '=', 'pending')
        .where('next_attempt_at', '>', now.getTime())
        .executeTakeFirstOrThrow(),
    )
    // PostgreSQL returns min(bigint) as text
    return row.at === null ? null : new Date(Number(row.at))
  }

  async claimDue(now: Date, leaseUntil: Date, share: ClaimShare): Promise<ClaimedDelivery[]> {
    if (share.limit <= 0) return []
    const nowMs = now.getTime()
    // The oldest due deliveries, whoever's, as many as there are free slots: the scan of deliveries_due_idx stops
    // there, however long the backlog.
    let oldest = this.#db
      .selectFrom('deliveries as d')
      .select(CANDIDATE_COLUMNS.map((c) => `d.${c}` as const))
      .where(dueAt(nowMs))
      .orderBy('d.next_attempt_at', 'asc')
      .limit(share.limit)
    // PostgreSQL: concurrent instances skip each other's claimed rows instead of waiting or double-sending
    if (this.#dialect === 'postgres') oldest = oldest.forUpdate('d').skipLocked()
    const due = (await this.#guard(oldest.execute())).map(candidate)
    let rows = takeFairShare(due, share)
    // They fill the free slots within the shares, or they are all that is due: the claim is what it would be
    // over every due delivery. Otherwise merchants at their share filled them, and a merchant under its share may
    // have deliveries due behind them: seek those, each merchant apart.
    if (rows.length < share.limit && due.length === share.limit)
      rows = takeFairShare(await this.#dueByMerchant(nowMs, share), share)
    // beyond the shares: the oldest due of answering merchants, above the reserve (of the oldest `limit`: enough)
    rows = [...rows, ...takeBeyondShare(due, share, rows)]
    if (rows.length === 0) return []
    const claimed = await this.#guard(
      this.#db
        .updateTable('deliveries')
        .set({ lease_until: leaseUntil.getTime() })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .returning([...DELIVERY_COLUMNS, 'payload'])
        .execute(),
    )
    const byId = new Map(claimed.map((r) => [r.id, r]))
    // in the order chosen: oldest due first within the shares, then beyond them
    return rows.flatMap((chosen) => {
      const r = byId.get(chosen.id)
      // never missing: the rows are this transaction's (SQLite's one writer; PostgreSQL's row locks)
      if (r === undefined) return []
      const { id, eventId, invoiceId, merchantId, url, type, attemptCount } = rowToDelivery(r)
      return { id, eventId, invoiceId, merchantId, url, type, attemptCount, leaseUntil, payload: r.payload }
    })
  }

  async addAttempt(deliveryId: DeliveryId, a: DeliveryAttempt): Promise<void> {
    await this.#guard(
      this.#db
        .insertInto('delivery_attempts')
        .values({
          id: a.id,
          delivery_id: deliveryId,
          at: a.at.getTime(),
          status_code: a.statusCode,
          latency_ms: a.latencyMs,
          error: a.error,
        })
        // recorded already: a COMMIT that succeeded but answered with an error is retried with the same attempt
        .onConflict((oc) => oc.column('id').doNothing())
        .execute(),
    )
  }

  async settle(claim: ClaimedDelivery, p: DeliveryProgress): Promise<boolean> {
    const result = await this.#guard(
      this.#db
        .updateTable('deliveries')
        .set({
          status: p.status,
          attempt_count: p.attemptCount,
          next_attempt_at: p.nextAttemptAt === null ? null : p.nextAttemptAt.getTime(),
          lease_until: null,
          updated_at: p.updatedAt.getTime(),
        })
        .where('id', '=', claim.id)
        .where('lease_until', '=', claim.leaseUntil.getTime())
        .where('attempt_count', '=', claim.attemptCount)
        .executeTakeFirst(),
    )
    return result.numUpdatedRows > 0n
  }

  async release(claim: ClaimedDelivery): Promise<boolean> {
    const result = await this.#guard(
      this.#db
        .updateTable('deliveries')
        .set({ lease_until: null })
        .where('id', '=', claim.id)
        .where('lease_until', '=', claim.leaseUntil.getTime())
        .where('attempt_count', '=', claim.attemptCount)
        .executeTakeFirst(),
    )
    return result.numUpdatedRows > 0n
  }

  async releaseAll(): Promise<number> {
    const result = await this.#guard(
      this.#db
        .updateTable('deliveries')
        .set({ lease_until: null })
        .where('lease_until', 'is not', null)
        .executeTakeFirst(),
    )
    return Number(result.numUpdatedRows)
  }

  async requeue(id: DeliveryId, now: Date): Promise<boolean> {
    const result = await this.#guard(
      this.#db
        .updateTable('deliveries')
        .set({
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: now.getTime(),
          lease_until: null,
          updated_at: now.getTime(),
        })
        .where('id', '=', id)
        // not while an attempt of it is under way (a live claim): requeued then, it was sent a second time at once
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now.getTime())]))
        .executeTakeFirst(),
    )
    return result.numUpdatedRows > 0n
  }

  async findById(id: DeliveryId): Promise<DeliveryWithAttempts | undefined> {
    const row = await this.#guard(
      this.#db.selectFrom('deliveries').select(DELIVERY_COLUMNS).where('id', '=', id).executeTakeFirst(),
    )
    if (row === undefined) return undefined
    const [withAttempts] = await this.#withAttempts([rowToDelivery(row)])
    return withAttempts
  }

  async list(q: DeliveryListQuery): Promise<DeliveryWithAttempts[]> {
    let query = this.#db.selectFrom('deliveries').select(DELIVERY_COLUMNS).where('merchant_id', '=', q.merchantId)
    if (q.invoiceId !== undefined) query = query.where('invoice_id', '=', q.invoiceId)
    if (q.status !== undefined) query = query.where('status', '=', q.status)
    if (q.exceptStatus !== undefined) query = query.where('status', '<>', q.exceptStatus)
    const after = q.after
    if (after !== undefined) {
      // strictly after the cursor in (created_at desc, id desc) order; a row value so the index range applies
      query = query.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '<', tuple(after.createdAt.getTime(), after.id)),
      )
    }
    const rows = await this.#guard(query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute())
    return this.#withAttempts(rows.map(rowToDelivery))
  }

  async queueStats(now: Date): Promise<DeliveryQueueStats> {
    const nowMs = now.getTime()
    const counted = await this.#guard(
      this.#db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow(),
    )
    const oldest = await this.#guard(
      this.#db
        .selectFrom('deliveries as d')
        .select((eb) => eb.fn.min('d.next_attempt_at').as('at'))
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at', '<=', nowMs)
        .where(noEarlierPending)
        .executeTakeFirstOrThrow(),
    )
    // PostgreSQL returns count(*) and min(bigint) as text
    const at = oldest.at === null ? null : Number(oldest.at)
    return { pending: Number(counted.n), oldestDueAt: at === null ? null : new Date(at) }
  }

  async #withAttempts(deliveries: Delivery[]): Promise<DeliveryWithAttempts[]> {
    if (deliveries.length === 0) return []
    const rows = await this.#guard(
      this.#db
        .selectFrom('delivery_attempts')
        .select(ATTEMPT_COLUMNS)
        .where(
          'delivery_id',
          'in',
          deliveries.map((d) => d.id),
        )
        .orderBy('delivery_id')
        .orderBy('at', 'asc')
        .orderBy('id', 'asc')
        .execute(),
    )
    const byDelivery = new Map<string, DeliveryAttempt[]>()
    for (const r of rows) {
      const list = byDelivery.get(r.delivery_id) ?? []
      list.push(rowToAttempt(r))
      byDelivery.set(r.delivery_id, list)
    }
    return deliveries.map((d) => ({ ...d, attempts: byDelivery.get(d.id) ?? [] }))
  }
}
