/**
 * Invoices and their outbox events over Kysely: the same queries serve SQLite and PostgreSQL.
 * Constructed once over the plain database (the Store's readers) and once per transaction (the Tx's repos).
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from 'kysely'
import type { InvoiceId, MerchantId } from '../../../domain/ids.js'
import { readStatus, type Invoice, type InvoiceEvent, type Status } from '../../../domain/invoice.js'
import type { InvoiceInfo } from '../../../domain/invoice-view.js'
import { StoreUnavailableError, type EventRepo, type InvoiceListQuery, type InvoiceRepo } from '../../../ports/store.js'
import {
  EVENT_COLUMNS,
  INVOICE_COLUMNS,
  INVOICE_INFO_COLUMNS,
  LIVE_ORDER_PREDICATE,
  bothOrderSides,
  eventToRow,
  invoiceToRow,
  type InvoiceRow,
  rowToEvent,
  rowToInvoice,
  rowToInvoiceInfo,
  type Database,
} from '../schema.js'
import type { Guard } from '../unavailable.js'
import { BatchedLookup } from '../batched-lookup.js'
import { QueryCache, type FastPaths } from '../query-cache.js'
import { statusChangeDeltas } from '../../../domain/daily-totals.js'
import type { TotalsSink } from './daily-totals-repo.js'

function firstInvoice(rows: readonly Pick<InvoiceRow, (typeof INVOICE_COLUMNS)[number]>[]): Invoice | undefined {
  const row = rows[0]
  return row && rowToInvoice(row)
}

// The compiled insert binds every column of INVOICE_COLUMNS: this fails to compile if the list misses one.
const everyInvoiceColumn: [Exclude<keyof InvoiceRow, (typeof INVOICE_COLUMNS)[number]>] extends [never] ? true : never =
  true
void everyInvoiceColumn

/** One (merchant, order_id) as a Map key: unambiguous whatever either holds. */
function orderKey(merchantId: MerchantId, orderId: string): string {
  return JSON.stringify([merchantId, orderId])
}

function orderOfKey(key: string): readonly [MerchantId, string] {
  return JSON.parse(key) as [MerchantId, string]
}

export class KyselyInvoiceRepo implements InvoiceRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard
  readonly #cache: QueryCache
  /** Where a status change's daily totals go (docs/dashboard.md#daily-totals): the transaction's, written before it commits. */
  readonly #totals: TotalsSink | undefined

  readonly #fast: FastPaths
  /** Where the adapter batches lookups (PostgreSQL): findById's and findByOrderId's, one query each per pass. */
  readonly #byId: BatchedLookup<InvoiceId, Invoice> | undefined
  readonly #byOrder: BatchedLookup<string, Invoice> | undefined

  /** `fast`: only for the repo over the plain database (statements outside transactions), where the adapter has them. */
  constructor(
    db: Kysely<Database>,
    guard: Guard,
    cache: QueryCache = new QueryCache(),
    fast: FastPaths = {},
    totals?: TotalsSink,
  ) {
    this.#db = db
    this.#totals = totals
    this.#guard = guard
    this.#cache = cache
    this.#fast = fast
    // A failed batch is asked again key by key unless the database is unavailable: a key the database refuses
    // must fail only the request that sent it, not the others it shared a pass with.
    const retryAlone = (err: unknown): boolean => !(err instanceof StoreUnavailableError)
    this.#byId = fast.batched === true ? new BatchedLookup((ids) => this.#findByIds(ids), { retryAlone }) : undefined
    this.#byOrder =
      fast.batched === true
        ? new BatchedLookup((keys) => this.#findByOrders(keys.map(orderOfKey)), { retryAlone })
        : undefined
  }

  findById(id: InvoiceId): Promise<Invoice | undefined> {
    if (this.#byId !== undefined) return this.#byId.load(id)
    return this.#cache.lookup(
      this.#db,
      'invoice-by-id',
      (i: InvoiceId) => this.#db.selectFrom('invoices').select(INVOICE_COLUMNS).where('id', '=', i),
      [id],
      this.#guard,
      firstInvoice,
      this.#fast,
      'first',
    )
  }

  /**
   * getInfo's read: the 12 columns its answer needs, by id and owner. Where lookups by id are batched (PostgreSQL),
   * it joins findById's batch of the pass (one query for every lookup by id) and checks the owner itself.
   */
  findInfo(merchantId: MerchantId, id: InvoiceId): Promise<InvoiceInfo | undefined> {
    if (this.#byId !== undefined)
      return this.#byId.load(id).then((invoice) => (invoice?.merchantId === merchantId ? invoice : undefined))
    return this.#cache.lookup(
      this.#db,
      'invoice-info',
      (m: MerchantId, i: InvoiceId) =>
        this.#db.selectFrom('invoices').select(INVOICE_INFO_COLUMNS).where('id', '=', i).where('merchant_id', '=', m),
      [merchantId, id],
      this.#guard,
      (rows) => {
        const row = rows[0]
        return row && rowToInvoiceInfo(row, id, merchantId)
      },
      this.#fast,
      'first',
    )
  }

  /** The invoices with these ids, by id, in one query (`id = any($1)`: an array parameter, PostgreSQL only). */
  #findByIds(ids: InvoiceId[]): Promise<Map<InvoiceId, Invoice>> {
    return this.#cache.lookup(
      this.#db,
      'invoices-by-ids',
      (i: InvoiceId[]) =>
        this.#db
          .selectFrom('invoices')
          .select(INVOICE_COLUMNS)
          .where('id', '=', (eb) => eb.fn<string>('any', [eb.val(i)])),
      [ids],
      this.#guard,
      (rows) => new Map(rows.map((row) => [row.id as InvoiceId, rowToInvoice(row)])),
      this.#fast,
    )
  }

  findByOrderId(merchantId: MerchantId, orderId: string): Promise<Invoice | undefined> {
    if (this.#byOrder !== undefined) return this.#byOrder.load(orderKey(merchantId, orderId))
    return this.#cache.lookup(
      this.#db,
      'invoice-by-order',
      (m: MerchantId, o: string) =>
        bothOrderSides((side) => this.#ofOrder(m, o, side))
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(1),
      [merchantId, orderId],
      this.#guard,
      firstInvoice,
      this.#fast,
      'first',
    )
  }

  /**
   * The newest invoice of each (merchant, order_id), by orderKey, in one query: the pairs as two arrays unnested side
   * by side, DISTINCT ON the pair in findByOrderId's order (PostgreSQL only).
   */
  #findByOrders(orders: readonly (readonly [MerchantId, string])[]): Promise<Map<string, Invoice>> {
    return this.#cache.lookup(
      this.#db,
      'invoices-by-orders',
      (m: MerchantId[], o: string[]) => {
        const ofOrders = bothOrderSides((side) =>
          this.#db
            .selectFrom('invoices')
            .select(INVOICE_COLUMNS)
            .where(sql<SqlBool>`(merchant_id, order_id) in (select * from unnest(${m}::text[], ${o}::text[]))`)
            .where(side),
        )
        return this.#db
          .selectFrom(ofOrders.as('of_orders'))
          .distinctOn(['merchant_id', 'order_id'])
          .select(INVOICE_COLUMNS)
          .orderBy('merchant_id')
          .orderBy('order_id')
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
      },
      [orders.map(([m]) => m), orders.map(([, o]) => o)],
      this.#guard,
      (rows) => new Map(rows.map((row) => [orderKey(row.merchant_id as MerchantId, row.order_id), rowToInvoice(row)])),
      this.#fast,
    )
  }

  /**
   * This merchant's invoices with this order_id on one side (`side`: LIVE_ORDER_PREDICATE, or one of
   * bothOrderSides'), every column.
   */
  #ofOrder(merchantId: MerchantId, orderId: string, side: RawBuilder<SqlBool>) {
    return this.#db
      .selectFrom('invoices')
      .select(INVOICE_COLUMNS)
      .where('merchant_id', '=', merchantId)
      .where('order_id', '=', orderId)
      .where(side)
  }

  /** Outside transactions, the answer to a repeated create (PostgreSQL: a prepared statement, like the hot lookups). */
  findLive(merchantId: MerchantId, orderId: string): Promise<Invoice | undefined> {
    return this.#cache.lookup(
      this.#db,
      'invoice-live',
      // literal predicate: lets the planner use the partial unique index (at most one row)
      (m: MerchantId, o: string) => this.#ofOrder(m, o, LIVE_ORDER_PREDICATE),
      [merchantId, orderId],
      this.#guard,
      firstInvoice,
      this.#fast,
      'first',
    )
  }

  /**
   * Ordered walks of an index (docs/dashboard.md#invoices): each filter is an equality that an index of migration 001
   * or 010 leads with after merchant_id, then (created_at, id) gives the order, so a page reads about `limit` rows.
   * `expired` as read is two walks merged here (expired rows; pending ones past expiry): an OR would sort them all.
   * A search reads the few invoices with that id (the primary key) or order_id (the two order indexes) and filters them
   * here, so no other filter's index can be picked to drive it instead.
   */
  async list(q: InvoiceListQuery): Promise<Invoice[]> {
    const now = q.now.getTime()
    const newer = q.before !== undefined
    let rows: Invoice[]
    if (q.search !== undefined) rows = (await this.#found(q.merchantId, q.search)).filter((i) => matches(i, q))
    else {
      const statuses: Predicate[] =
        q.status === 'expired'
          ? [(eb) => eb('status', '=', 'expired'), expiredPending(now)]
          : [q.status === undefined ? undefined : statusAsRead(q.status, now)]
      rows = []
      for (const status of statuses) rows.push(...(await this.#walk(q, status)))
    }
    const sign = newer ? 1 : -1
    rows.sort((a, b) => sign * compareNewest(a, b))
    const page = rows.slice(0, q.limit)
    return newer ? page.reverse() : page
  }

  /** The merchant's invoices with this id or this order_id: one, or an order's few. */
  async #found(merchantId: MerchantId, search: string): Promise<Invoice[]> {
    const rows = await this.#guard(
      bothOrderSides((side) => this.#ofOrder(merchantId, search, side).where('id', '!=', search))
        .unionAll(
          this.#db
            .selectFrom('invoices')
            .select(INVOICE_COLUMNS)
            .where('merchant_id', '=', merchantId)
            .where('id', '=', search),
        )
        .execute(),
    )
    return rows.map(rowToInvoice)
  }

  /** One walk: newest first from `after` (or the start), or oldest first from `before` (the caller reverses). */
  async #walk(q: InvoiceListQuery, status: Predicate): Promise<Invoice[]> {
    let query = this.#db.selectFrom('invoices').select(INVOICE_COLUMNS).where('merchant_id', '=', q.merchantId)
    if (status !== undefined) query = query.where(status)
    if (q.service !== undefined) query = query.where('service', '=', q.service)
    if (q.currency !== undefined) query = query.where('currency', '=', q.currency)
    if (q.createdFrom !== undefined) query = query.where('created_at', '>=', q.createdFrom.getTime())
    if (q.createdTo !== undefined) query = query.where('created_at', '<', q.createdTo.getTime())
    const { after, before } = q
    // a row value, so the index range applies: strictly past the cursor in the walk's order
    if (after !== undefined)
      query = query.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '<', tuple(after.createdAt.getTime(), after.id)),
      )
    if (before !== undefined)
      query = query.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '>', tuple(before.createdAt.getTime(), before.id)),
      )
    const dir = before !== undefined ? 'asc' : 'desc'
    const rows = await this.#guard(query.orderBy('created_at', dir).orderBy('id', dir).limit(q.limit).execute())
    return rows.map(rowToInvoice)
  }

  /**
   * docs/api.md#idempotency: the partial unique index decides, in one statement — never read-then-write. The conflict target
   * names that index (columns + its predicate), so any other conflict, such as a duplicate id, still throws.
   */
  async insert(inv: Invoice): Promise<'inserted' | 'live_order_exists'> {
    const row = invoiceToRow(inv)
    // compiled once (QueryCache): building and compiling this statement's tree cost more than running it
    const result = await this.#guard(
      this.#cache.run(
        this.#db,
        'invoice-insert',
        (...values: unknown[]) =>
          this.#db
            .insertInto('invoices')
            .values(Object.fromEntries(INVOICE_COLUMNS.map((k, i) => [k, values[i]])) as unknown as InvoiceRow)
            .onConflict((oc) => oc.columns(['merchant_id', 'order_id']).where(LIVE_ORDER_PREDICATE).doNothing()),
        INVOICE_COLUMNS.map((k) => row[k]),
        this.#fast,
      ),
    )
    return (result.numAffectedRows ?? 0n) > 0n ? 'inserted' : 'live_order_exists'
  }

  /**
   * Compare-and-set on status. Writes every column but the invoice's identity (id, merchant, order_id, created_at).
   * A status change moves the daily totals in the same transaction (docs/dashboard.md#daily-totals).
   */
  async update(inv: Invoice, expected: Status): Promise<boolean> {
    const row = invoiceToRow(inv)
    const result = await this.#guard(
      this.#db
        .updateTable('invoices')
        .set({
          amount: row.amount,
          currency: row.currency,
          status: row.status,
          service: row.service,
          comment: row.comment,
          callback_url: row.callback_url,
          success_url: row.success_url,
          fail_url: row.fail_url,
          pay_url: row.pay_url,
          qr_data: row.qr_data,
          credited: row.credited,
          fee: row.fee,
          expires_at: row.expires_at,
          paid_at: row.paid_at,
          held_at: row.held_at,
          updated_at: row.updated_at,
          payment_seen_at: row.payment_seen_at,
        })
        .where('id', '=', inv.id)
        .where('status', '=', expected)
        .executeTakeFirst(),
    )
    if (result.numUpdatedRows === 0n) return false
    if (inv.status !== expected) {
      if (this.#totals === undefined) throw new Error('a status change needs the daily totals sink')
      await this.#totals.record(statusChangeDeltas(expected, inv))
    }
    return true
  }

  listExpiredPending(now: Date, limit: number): Promise<Invoice[]> {
    return this.#oldestIn('pending', 'expires_at', now, limit)
  }

  listStaleHolds(heldBefore: Date, limit: number): Promise<Invoice[]> {
    return this.#oldestIn('hold', 'held_at', heldBefore, limit)
  }

  /** The sweeper's work: invoices in `status` whose `column` time is at or before `until`, oldest first. */
  async #oldestIn(status: Status, column: 'expires_at' | 'held_at', until: Date, limit: number): Promise<Invoice[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('invoices')
        .select(INVOICE_COLUMNS)
        .where('status', '=', status)
        .where(column, '<=', until.getTime())
        // a payment seen on time keeps its invoice from expiring while it confirms, and a deposit invoice waits
        // until its chain was read past expired_at: a transfer mined just before it is seen first
        // (docs/stablecoins.md#states)
        .$if(column === 'expires_at', (q) =>
          q
            .where('payment_seen_at', 'is', null)
            .where(({ not, exists, selectFrom, ref }) =>
              not(
                exists(
                  selectFrom('evm_deposits as d')
                    .innerJoin('evm_cursors as c', 'c.service', 'd.service')
                    .select('d.invoice_id')
                    .whereRef('d.invoice_id', '=', ref('invoices.id'))
                    .whereRef('c.read_until', '<', ref('invoices.expires_at')),
                ),
              ),
            ),
        )
        .orderBy(column, 'asc')
        .limit(limit)
        .execute(),
    )
    return rows.map(rowToInvoice)
  }
}

/** (created_at, id) order: negative when `a` is older. */
function compareNewest(a: Invoice, b: Invoice): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/** The listing's filters and cursors on an invoice read already (a search's few), as the walks' SQL has them. */
function matches(i: Invoice, q: InvoiceListQuery): boolean {
  const at = i.createdAt.getTime()
  const position = (c: { createdAt: Date; id: string }) => ({ createdAt: c.createdAt, id: c.id }) as Invoice
  return (
    (q.status === undefined || readStatus(i, q.now) === q.status) &&
    (q.service === undefined || i.service === q.service) &&
    (q.currency === undefined || i.currency === q.currency) &&
    (q.createdFrom === undefined || at >= q.createdFrom.getTime()) &&
    (q.createdTo === undefined || at < q.createdTo.getTime()) &&
    (q.after === undefined || compareNewest(i, position(q.after)) < 0) &&
    (q.before === undefined || compareNewest(i, position(q.before)) > 0)
  )
}

type Predicate = ((eb: ExpressionBuilder<Database, 'invoices'>) => Expression<SqlBool>) | undefined

/** A pending invoice past expiry, with no payment seen: it reads as expired. */
function expiredPending(nowMs: number) {
  return (eb: ExpressionBuilder<Database, 'invoices'>) =>
    eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', nowMs), eb('payment_seen_at', 'is', null)])
}

/** docs/api.md#getinfo: the filter follows the status as it reads — a pending invoice past expiry is expired. */
function statusAsRead(status: Status, nowMs: number) {
  return (eb: ExpressionBuilder<Database, 'invoices'>): Expression<SqlBool> => {
    switch (status) {
      case 'expired':
        return eb.or([eb('status', '=', 'expired'), expiredPending(nowMs)(eb)])
      case 'pending':
        return eb.and([
          eb('status', '=', 'pending'),
          eb.or([eb('expires_at', '>', nowMs), eb('payment_seen_at', 'is not', null)]),
        ])
      default:
        return eb('status', '=', status)
    }
  }
}

export class KyselyEventRepo implements EventRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard

  constructor(db: Kysely<Database>, guard: Guard) {
    this.#db = db
    this.#guard = guard
  }

  async append(event: InvoiceEvent): Promise<void> {
    await this.#guard(this.#db.insertInto('events').values(eventToRow(event)).execute())
  }

  async listByInvoice(invoiceId: InvoiceId): Promise<InvoiceEvent[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('events')
        .select(EVENT_COLUMNS)
        .where('invoice_id', '=', invoiceId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute(),
    )
    return rows.map(rowToEvent)
  }
}
