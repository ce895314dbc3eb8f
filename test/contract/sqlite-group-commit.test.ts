import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../../src/adapters/db/sqlite/sqlite-store.js'
import { StoreUnavailableError, type Store } from '../../src/ports/store.js'
import { givenMerchant, invoiceFixture, merchantFixture } from './fixtures.js'

/** The store's insert of a new invoice alone: on SQLite it joins the open batch (the tests below fail without it). */
function insertAloneOf(store: Store): NonNullable<Store['insertInvoice']> {
  if (store.insertInvoice === undefined) throw new Error('the SQLite store inserts new invoices into the open batch')
  return store.insertInvoice
}

describe('SQLite group commit (the writes of one event-loop turn share one durable COMMIT)', () => {
  let dir: string
  let path: string
  let store: Store
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'))
    path = join(dir, 'g.db')
    store = await openSqliteStore({ path, synchronous: 'full' })
    await store.migrate()
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('when many transactions start in one turn, then all commit and each is acknowledged only after its data is durable', async () => {
    const merchant = await givenMerchant(store)
    const invoices = Array.from({ length: 50 }, () => invoiceFixture(merchant.id))
    // an independent connection, as another process would read the file
    const outside = new BetterSqlite3(path, { readonly: true })
    const count = () => (outside.prepare('select count(*) as n from invoices').get() as { n: number }).n
    const seenAtAck: number[] = []
    await Promise.all(
      invoices.map((inv) =>
        store
          .transaction((tx) => tx.invoices.insert(inv))
          .then(() => {
            seenAtAck.push(count())
          }),
      ),
    )
    // before any acknowledgment, the whole batch was already committed and visible to other connections
    expect(seenAtAck.every((n) => n === 50)).toBe(true)
    outside.close()
  })

  it('when invoices are inserted alone in one turn, then they join the batch: all commit, each acknowledged only after its data is durable', async () => {
    // create-invoice inserts a new invoice with insertInvoice where the store has it: here it must take the group
    // commit (no savepoint, no transaction of its own), not commit each insert alone
    const insertAlone = insertAloneOf(store)
    const merchant = await givenMerchant(store)
    const invoices = Array.from({ length: 50 }, () => invoiceFixture(merchant.id))
    const outside = new BetterSqlite3(path, { readonly: true })
    const count = () => (outside.prepare('select count(*) as n from invoices').get() as { n: number }).n
    const seenAtAck: number[] = []
    // a transaction in the same turn shares the batch too
    const inTx = invoiceFixture(merchant.id)
    const results = await Promise.all([
      ...invoices.map((inv) =>
        insertAlone(inv).then((r) => {
          seenAtAck.push(count())
          return r
        }),
      ),
      store
        .transaction((tx) => tx.invoices.insert(inTx))
        .then((r) => {
          seenAtAck.push(count())
          return r
        }),
    ])
    expect(results.every((r) => r === 'inserted')).toBe(true)
    expect(seenAtAck).toEqual(Array.from({ length: 51 }, () => 51))
    outside.close()
  })

  it('when an insert alone meets a live holder of its order_id or a constraint, then only it is refused and the rest of its batch commits', async () => {
    const insertAlone = insertAloneOf(store)
    const merchant = await givenMerchant(store)
    const holder = invoiceFixture(merchant.id)
    const good = invoiceFixture(merchant.id)
    const [first, rival, duplicateId, other] = await Promise.allSettled([
      insertAlone(holder),
      // the same order_id in the same batch: the partial unique index decides, as inside a transaction
      insertAlone(invoiceFixture(merchant.id, { orderId: holder.orderId })),
      insertAlone({ ...holder, orderId: 'another order' }), // the same id: a constraint error, thrown
      insertAlone(good),
    ])
    expect(first).toEqual({ status: 'fulfilled', value: 'inserted' })
    expect(rival).toEqual({ status: 'fulfilled', value: 'live_order_exists' })
    expect(duplicateId.status).toBe('rejected')
    expect(other).toEqual({ status: 'fulfilled', value: 'inserted' })
    expect(await store.invoices.findById(holder.id)).toEqual(holder)
    expect(await store.invoices.findById(good.id)).toEqual(good)
    expect((await store.invoices.list({ merchantId: merchant.id, limit: 10, now: new Date() })).length).toBe(2)
  })

  it('when an insert alone has not been acknowledged yet, then reads outside it do not see it', async () => {
    const insertAlone = insertAloneOf(store)
    const merchant = await givenMerchant(store)
    const invoice = invoiceFixture(merchant.id)
    let acknowledged = false
    const pending = insertAlone(invoice).then(() => (acknowledged = true))
    await Promise.resolve()
    await Promise.resolve()
    expect(acknowledged).toBe(false)
    expect(await store.invoices.findById(invoice.id)).toBeUndefined()
    await pending
    expect(await store.invoices.findById(invoice.id)).toEqual(invoice)
  })

  it('when a write has not been acknowledged yet, then reads outside it do not see it', async () => {
    const merchant = merchantFixture()
    const pending = store.transaction((tx) => tx.merchants.insert(merchant))
    let acknowledged = false
    void pending.then(() => (acknowledged = true))
    // still in the same turn: the batch is open, the COMMIT has not run
    await Promise.resolve()
    await Promise.resolve()
    expect(acknowledged).toBe(false)
    expect(await store.merchants.findById(merchant.id)).toBeUndefined()
    await pending
    expect(await store.merchants.findById(merchant.id)).toBeDefined()
  })

  it('when one transaction of a batch fails, then only its own writes are undone', async () => {
    const merchant = await givenMerchant(store)
    const good = invoiceFixture(merchant.id)
    const bad = invoiceFixture(merchant.id)
    const results = await Promise.allSettled([
      store.transaction((tx) => tx.invoices.insert(good)),
      store.transaction(async (tx) => {
        await tx.invoices.insert(bad)
        throw new Error('business rule says no')
      }),
      store.transaction((tx) => tx.invoices.insert({ ...good, orderId: 'other' })), // duplicate id: a constraint error
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected'])
    expect(await store.invoices.findById(good.id)).toMatchObject({ orderId: good.orderId })
    expect(await store.invoices.findById(bad.id)).toBeUndefined()
  })

  it("when SQLite rolls the whole batch back after one member's statement, then the other members fail as unavailable (503, not 500) and none is committed", async () => {
    const insertAlone = insertAloneOf(store)
    const merchant = await givenMerchant(store)
    // A trigger stands in for a statement after which SQLite rolls the whole transaction back itself (SQLITE_FULL,
    // IOERR or NOMEM in the middle of a statement: a disk that fills while a large batch spills to the WAL).
    const outside = new BetterSqlite3(path)
    outside.exec(
      `create trigger roll_back_all before insert on invoices when new.order_id = 'roll back' begin select raise(rollback, 'rolled back'); end`,
    )
    outside.close()
    const alone = invoiceFixture(merchant.id)
    const inTx = invoiceFixture(merchant.id)
    const [first, second, culprit] = await Promise.allSettled([
      insertAlone(alone),
      store.transaction((tx) => tx.invoices.insert(inTx)),
      store.transaction((tx) => tx.invoices.insert(invoiceFixture(merchant.id, { orderId: 'roll back' }))),
    ])
    for (const member of [first, second]) {
      expect(member.status).toBe('rejected')
      expect(member.status === 'rejected' && member.reason).toBeInstanceOf(StoreUnavailableError)
    }
    expect(culprit.status).toBe('rejected')
    expect(await store.invoices.findById(alone.id)).toBeUndefined()
    expect(await store.invoices.findById(inTx.id)).toBeUndefined()
    // the next batch works
    const later = invoiceFixture(merchant.id)
    expect(await insertAlone(later)).toBe('inserted')
    expect(await store.invoices.findById(later.id)).toEqual(later)
  })

  it('when the store closes with a batch open, then the batch is committed first', async () => {
    const merchant = merchantFixture()
    const pending = store.transaction((tx) => tx.merchants.insert(merchant))
    await Promise.resolve()
    await store.close()
    await pending
    const reopened = await openSqliteStore({ path, synchronous: 'full' })
    expect(await reopened.merchants.findById(merchant.id)).toBeDefined()
    store = reopened
  })

  describe('hot lookups share one read snapshot per event-loop pass', () => {
    it('when a batch commits after a lookup in the same pass, then a lookup after its acknowledgment sees it', async () => {
      const merchant = await givenMerchant(store)
      const invoice = invoiceFixture(merchant.id)
      let before: unknown = 'not looked up'
      await store.transaction(async (tx) => {
        await tx.invoices.insert(invoice)
        // inside the open batch, so the batch's COMMIT comes before the end of the pass in which this lookup
        // opens its snapshot; the acknowledgment below runs between the two
        before = await store.invoices.findById(invoice.id)
      })
      expect(before).toBeUndefined()
      // acknowledged: the snapshot taken before the COMMIT must not answer this
      expect(await store.invoices.findById(invoice.id)).toMatchObject({ id: invoice.id })
    })

    it('when another connection commits, then lookups see it from the next pass on', async () => {
      const merchant = await givenMerchant(store)
      const invoice = invoiceFixture(merchant.id)
      await store.transaction((tx) => tx.invoices.insert(invoice))
      expect(await store.invoices.findById(invoice.id)).toMatchObject({ status: 'pending' })
      const outside = new BetterSqlite3(path)
      outside.prepare("update invoices set status = 'failed' where id = ?").run(invoice.id)
      outside.close()
      await new Promise((done) => setImmediate(done))
      expect(await store.invoices.findById(invoice.id)).toMatchObject({ status: 'failed' })
    })

    it('when lookups and writes alternate for thousands of passes, then the WAL file is reused instead of growing', async () => {
      const merchant = await givenMerchant(store)
      const first = invoiceFixture(merchant.id)
      await store.transaction((tx) => tx.invoices.insert(first))
      // each pass: a write and a lookup (a snapshot held through the pass). 3,000 COMMITs write ~100 MB of WAL
      // frames; the checkpoint thread starts the WAL over past 1,000 frames (4 MB), and the writer's backstop
      // past 10,000 (40 MB) if the thread falls behind on a loaded machine — either only if no snapshot of ours
      // outlives its pass and keeps the checkpoints from copying the whole WAL back
      for (let i = 0; i < 3000; i += 1) {
        const write = store.transaction((tx) => tx.invoices.insert(invoiceFixture(merchant.id)))
        expect(await store.invoices.findById(first.id)).toBeDefined()
        await write
      }
      expect(statSync(`${path}-wal`).size).toBeLessThan(48 * 1024 * 1024)
    })
  })
})
