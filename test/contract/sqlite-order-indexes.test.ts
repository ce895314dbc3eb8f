/**
 * The invoices of an order on SQLite since migration 012 (src/adapters/db/migrations/012-order-index-not-live.ts):
 * a create writes one order-index entry, not two; an invoice that stops being live gets its entry in the other
 * index; every lookup by order reads both partial indexes and finds every invoice of the order, on a fresh file
 * (no planner statistics) and with statistics.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openSqliteStore } from '../../src/adapters/db/sqlite/sqlite-store.js'
import type { Invoice } from '../../src/domain/invoice.js'
import type { Store } from '../../src/ports/store.js'
import { HOUR, T0, at, givenInvoice, givenMerchant, invoiceFixture } from './fixtures.js'

const dir = mkdtempSync(join(tmpdir(), 'order-indexes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Entries in each of the invoices' order indexes (SQLite's dbstat: cells of the index's leaf pages). */
function orderIndexEntries(path: string): Record<string, number> {
  const raw = new BetterSqlite3(path, { readonly: true })
  try {
    const rows = raw
      .prepare(
        "select name, sum(ncell) as n from dbstat where name in ('invoices_live_order_key', 'invoices_order_not_live_idx', 'invoices_order_idx') and pagetype = 'leaf' group by name",
      )
      .all() as { name: string; n: number }[]
    return Object.fromEntries(rows.map((r) => [r.name, r.n]))
  } finally {
    raw.close()
  }
}

describe('SQLite: the order indexes (migration 012)', () => {
  let path: string
  let store: Store
  beforeEach(async () => {
    path = join(dir, `${randomUUID()}.db`)
    store = await openSqliteStore({ path, synchronous: 'normal' })
    await store.migrate()
  })
  afterEach(async () => {
    vi.restoreAllMocks()
    await store.close()
  })

  it('when invoices are created, then each writes one order-index entry; when they expire, each gets its second there', async () => {
    const m = await givenMerchant(store)
    const invoices: Invoice[] = []
    for (let i = 0; i < 40; i++) invoices.push(await givenInvoice(store, m.id))
    // the full index of 001 is gone; the live ones are in the unique index only
    expect(orderIndexEntries(path)).toEqual({ invoices_live_order_key: 40, invoices_order_not_live_idx: 0 })
    await store.transaction(async (tx) => {
      for (const inv of invoices.slice(0, 15))
        expect(await tx.invoices.update({ ...inv, status: 'expired', updatedAt: at(HOUR) }, 'pending')).toBe(true)
    })
    expect(orderIndexEntries(path)).toEqual({ invoices_live_order_key: 25, invoices_order_not_live_idx: 15 })
  })

  it('when an order has expired invoices and a live one, then every lookup by order finds them, and the order stays one live invoice', async () => {
    const m = await givenMerchant(store)
    const orderId = 'order-7'
    const old = await givenInvoice(store, m.id, { orderId, createdAt: T0 })
    await store.transaction((tx) => tx.invoices.update({ ...old, status: 'expired', updatedAt: at(HOUR) }, 'pending'))
    const older = await givenInvoice(store, m.id, { orderId, createdAt: at(2 * HOUR) })
    await store.transaction((tx) =>
      tx.invoices.update({ ...older, status: 'failed', updatedAt: at(3 * HOUR) }, 'pending'),
    )
    // newest of the ended ones: read before a live one exists
    expect((await store.invoices.findByOrderId(m.id, orderId))?.id).toBe(older.id)
    expect(await store.invoices.findLive(m.id, orderId)).toBeUndefined()
    const live = await givenInvoice(store, m.id, { orderId, createdAt: at(4 * HOUR) })
    expect((await store.invoices.findByOrderId(m.id, orderId))?.id).toBe(live.id)
    expect((await store.invoices.findLive(m.id, orderId))?.id).toBe(live.id)
    const listed = await store.invoices.list({ merchantId: m.id, search: orderId, limit: 10, now: at(4 * HOUR) })
    expect(listed.map((i) => i.id)).toEqual([live.id, older.id, old.id])
    const found = await store.console.invoicesByOrderId(orderId, 10)
    expect(found.map((i) => i.id)).toEqual([live.id, older.id, old.id])
    // the unique index still decides
    const rival = invoiceFixture(m.id, { orderId, createdAt: at(5 * HOUR) })
    expect(await store.transaction((tx) => tx.invoices.insert(rival))).toBe('live_order_exists')
  })

  it('when the lookups by order run, on a fresh file and with statistics, then each reads the two order indexes and walks no other', async () => {
    const m = await givenMerchant(store)
    for (let i = 0; i < 20; i++) await givenInvoice(store, m.id)
    // the SQL the store prepares, as it runs it (the spy passes every call through)
    const prepare = vi.spyOn(BetterSqlite3.prototype, 'prepare')
    await store.invoices.findByOrderId(m.id, 'order-x')
    await store.invoices.findLive(m.id, 'order-x')
    await store.invoices.list({ merchantId: m.id, search: 'order-x', limit: 10, now: T0 })
    await store.console.invoicesByOrderId('order-x', 10)
    const byOrder = [...new Set(prepare.mock.calls.map(([text]) => text))].filter((text) =>
      text.includes('"order_id" ='),
    )
    prepare.mockRestore()
    expect(byOrder).toHaveLength(4)
    expectOrderIndexesOnly(path, byOrder)
    // with the planner's statistics (the service gathers them at start and hourly), over ended invoices as well
    await store.transaction(async (tx) => {
      for (let i = 0; i < 300; i++) {
        const inv = invoiceFixture(m.id)
        await tx.invoices.insert(inv)
        if (i % 3 === 0) await tx.invoices.update({ ...inv, status: 'expired', updatedAt: at(HOUR) }, 'pending')
      }
    })
    await store.optimize()
    const stats = new BetterSqlite3(path, { readonly: true })
    try {
      const indexes = stats.prepare("select idx from sqlite_stat1 where tbl = 'invoices'").pluck().all()
      expect(indexes).toEqual(expect.arrayContaining(['invoices_live_order_key', 'invoices_order_not_live_idx']))
    } finally {
      stats.close()
    }
    expectOrderIndexesOnly(path, byOrder)
  })
})

/** Each statement's plan (SQLite's EXPLAIN QUERY PLAN on the file as it is) reads the invoices through the order indexes. */
function expectOrderIndexesOnly(path: string, statements: readonly string[]): void {
  const raw = new BetterSqlite3(path, { readonly: true })
  try {
    for (const text of statements) {
      // any value for each parameter: the plan does not depend on them
      const params = Array.from({ length: text.split('?').length - 1 }, () => 'x')
      const plan = (raw.prepare(`explain query plan ${text}`).all(params) as { detail: string }[]).map((r) => r.detail)
      const reads = plan.filter((d) => / invoices /.test(`${d} `))
      expect(reads).not.toHaveLength(0)
      // each read of the invoices is a search of an order index (or of the primary key: the search by id)
      for (const d of reads)
        expect(d).toMatch(
          /^SEARCH invoices USING INDEX (invoices_live_order_key|invoices_order_not_live_idx|sqlite_autoindex_invoices_1) /,
        )
      if (!text.includes('not in')) continue
      expect(plan.some((d) => d.includes('invoices_live_order_key'))).toBe(true)
      expect(plan.some((d) => d.includes('invoices_order_not_live_idx'))).toBe(true)
    }
  } finally {
    raw.close()
  }
}
