/**
 * The Store contract for webhook deliveries (docs/webhooks.md#ordering, docs/webhooks.md#delivery-log; docs/architecture.md#retries-are-rows-not-sleeps: retries are rows): the claim —
 * due, leased, one invoice in order, disjoint under concurrency —, the compare-and-set of an attempt's result,
 * redelivery, the merchant's log and the queue statistics.
 *
 * PostgreSQL runs share one schema per file, so the tests never assume an empty table: each starts by settling
 * whatever an earlier test left due, and looks only at its own rows.
 */
import { randomUUID } from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import type { ClaimedDelivery, Delivery } from '../../src/domain/delivery.js'
import type { DeliveryId, EventId, MerchantId } from '../../src/domain/ids.js'
import type { Invoice } from '../../src/domain/invoice.js'
import type { Store } from '../../src/ports/store.js'
import {
  ascendingIds,
  at,
  eventFixture,
  givenInvoice,
  givenMerchant,
  MINUTE,
  T0,
  type ContractContext,
} from './fixtures.js'

const FAR = new Date('2999-01-01T00:00:00.000Z')
const LEASE = 30_000

/** The event and delivery of one invoice transition, written together as the outbox does. */
async function givenDelivery(
  store: Store,
  inv: Invoice,
  over: Partial<Delivery> = {},
  payload = `{"n":"${randomUUID()}"}`,
): Promise<Delivery> {
  const event = eventFixture(inv, { createdAt: over.createdAt ?? T0 })
  const d: Delivery = {
    id: randomUUID() as DeliveryId,
    eventId: event.id,
    invoiceId: inv.id,
    merchantId: inv.merchantId,
    url: 'https://shop.test/hook',
    type: 'invoice.paid',
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: T0,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  }
  await store.transaction(async (tx) => {
    await tx.events.append(event)
    await tx.deliveries.insert(d, payload)
  })
  return d
}

const claim = (
  store: Store,
  now: Date,
  limit = 100,
  perMerchant = limit,
  inFlight: ReadonlyMap<MerchantId, number> = new Map(),
  answering: readonly MerchantId[] = [],
  perUnproven = perMerchant,
) =>
  store.transaction((tx) =>
    tx.deliveries.claimDue(now, new Date(now.getTime() + LEASE), {
      limit,
      perMerchant,
      perUnproven,
      inFlight,
      answering: new Set(answering),
    }),
  )
const settle = (
  store: Store,
  c: ClaimedDelivery,
  status: 'pending' | 'succeeded' | 'failed',
  nextAttemptAt: Date | null = null,
) =>
  store.transaction((tx) =>
    tx.deliveries.settle(c, { status, attemptCount: c.attemptCount + 1, nextAttemptAt, updatedAt: T0 }),
  )
const ids = (cs: readonly { id: string }[]) => cs.map((c) => c.id)

/** Settles everything an earlier test left due, so claims below see only this test's rows. */
async function drain(store: Store): Promise<void> {
  for (;;) {
    const left = await claim(store, FAR, 500)
    if (left.length === 0) return
    for (const c of left) await settle(store, c, 'failed')
  }
}

export function describeDeliveryContract(ctx: ContractContext): void {
  describe('deliveries', () => {
    beforeEach(async () => drain(ctx.store()))

    it('when a delivery is written, then findById returns it as written, with no attempts, and claimDue returns its payload', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id, { callbackUrl: 'https://shop.test/hook' })
      const d = await givenDelivery(
        store,
        inv,
        { type: 'invoice.hold', nextAttemptAt: at(MINUTE) },
        '{"type":"invoice.hold","data":{"comment":"Заказ"}}',
      )
      expect(await store.deliveries.findById(d.id)).toEqual({ ...d, attempts: [] })
      expect(await store.deliveries.findById(randomUUID() as DeliveryId)).toBeUndefined()
      const [c] = await claim(store, at(MINUTE))
      expect(c).toEqual({
        id: d.id,
        eventId: d.eventId,
        invoiceId: inv.id,
        merchantId: m.id,
        url: d.url,
        type: 'invoice.hold',
        attemptCount: 0,
        leaseUntil: new Date(at(MINUTE).getTime() + LEASE),
        payload: '{"type":"invoice.hold","data":{"comment":"Заказ"}}',
      })
    })

    it('when a delivery is not yet due, already claimed, or no longer pending, then claimDue skips it; an expired lease makes it due again', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const later = await givenDelivery(store, await givenInvoice(store, m.id), { nextAttemptAt: at(2 * MINUTE) })
      const done = await givenDelivery(store, await givenInvoice(store, m.id), {
        status: 'succeeded',
        nextAttemptAt: null,
      })
      const due = await givenDelivery(store, await givenInvoice(store, m.id))
      expect(ids(await claim(store, at(MINUTE)))).toEqual([due.id])
      expect(await claim(store, at(MINUTE))).toEqual([]) // leased until MINUTE + 30 s
      const reclaimed = await claim(store, new Date(at(MINUTE).getTime() + LEASE)) // the lease ran out: a crashed dispatcher
      expect(ids(reclaimed)).toEqual([due.id])
      await settle(store, reclaimed[0]!, 'succeeded')
      expect(ids(await claim(store, at(3 * MINUTE)))).toEqual([later.id])
      expect(done.status).toBe('succeeded')
    })

    it('when deliveries are pending for later, then nextAttemptAfter is the earliest of them; due ones and settled ones do not count', async () => {
      const store = ctx.store()
      const next = (now: Date) => store.transaction((tx) => tx.deliveries.nextAttemptAfter(now))
      expect(await next(at(MINUTE))).toBeNull()
      const m = await givenMerchant(store)
      await givenDelivery(store, await givenInvoice(store, m.id), { nextAttemptAt: at(MINUTE) }) // due then: not after it
      await givenDelivery(store, await givenInvoice(store, m.id), { nextAttemptAt: at(5 * MINUTE) })
      await givenDelivery(store, await givenInvoice(store, m.id), { nextAttemptAt: at(3 * MINUTE) })
      await givenDelivery(store, await givenInvoice(store, m.id), {
        status: 'succeeded',
        nextAttemptAt: at(2 * MINUTE),
      })
      expect(await next(at(MINUTE))).toEqual(at(3 * MINUTE))
      expect(await next(at(4 * MINUTE))).toEqual(at(5 * MINUTE))
      expect(await next(at(5 * MINUTE))).toBeNull()
    })

    it('when an invoice has several pending deliveries, then only the earliest is due until it succeeded or failed (docs/webhooks.md#ordering)', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      const [lo, hi] = ascendingIds<DeliveryId>(2)
      const hold = await givenDelivery(store, inv, {
        id: hi!,
        type: 'invoice.hold',
        createdAt: at(MINUTE),
        nextAttemptAt: at(MINUTE),
      })
      const paid = await givenDelivery(store, inv, {
        type: 'invoice.paid',
        createdAt: at(2 * MINUTE),
        nextAttemptAt: at(2 * MINUTE),
      })
      // same created_at: the id decides
      const tie = await givenDelivery(store, inv, {
        id: lo!,
        type: 'invoice.hold',
        createdAt: at(MINUTE),
        nextAttemptAt: at(MINUTE),
      })
      const other = await givenDelivery(store, await givenInvoice(store, m.id), { createdAt: at(3 * MINUTE) })

      const first = await claim(store, at(5 * MINUTE))
      expect(ids(first).sort()).toEqual([tie.id, other.id].sort())
      await settle(
        store,
        first.find((c) => c.id === other.id)!,
        'succeeded',
      )
      // a retry still pending (due later) keeps blocking the later events of its invoice
      await settle(
        store,
        first.find((c) => c.id === tie.id)!,
        'pending',
        at(10 * MINUTE),
      )
      expect(await claim(store, at(6 * MINUTE))).toEqual([])
      const retried = await claim(store, at(10 * MINUTE))
      expect(ids(retried)).toEqual([tie.id])
      await settle(store, retried[0]!, 'failed') // given up: the next one is due
      const second = await claim(store, at(10 * MINUTE))
      expect(ids(second)).toEqual([hold.id])
      await settle(store, second[0]!, 'succeeded')
      expect(ids(await claim(store, at(10 * MINUTE)))).toEqual([paid.id])
    })

    it('when one merchant has a backlog due before everyone else`s, then a claim takes its share of it, finds the other merchants` deliveries, and gives it more only while it answers and above a reserve', async () => {
      const store = ctx.store()
      const [hog, other, third] = [await givenMerchant(store), await givenMerchant(store), await givenMerchant(store)]
      const b: Delivery[] = []
      for (let i = 0; i < 30; i++)
        b.push(await givenDelivery(store, await givenInvoice(store, hog.id), { nextAttemptAt: at(i * 1000) }))
      const o1 = await givenDelivery(store, await givenInvoice(store, other.id), { nextAttemptAt: at(MINUTE) })
      const t1 = await givenDelivery(store, await givenInvoice(store, third.id), { nextAttemptAt: at(MINUTE + 1000) })
      const now = at(2 * MINUTE)
      const hogIds = (n: number, m: number) => b.slice(n, m).map((d) => d.id)
      // 4 free slots, 2 a merchant: the hog's two oldest, then the others', however long its backlog
      expect(ids(await claim(store, now, 4, 2, new Map(), [hog.id]))).toEqual([...hogIds(0, 2), o1.id, t1.id])
      // the hog has its 2 in flight and does not answer: the others only
      const o2 = await givenDelivery(store, await givenInvoice(store, other.id), { nextAttemptAt: at(MINUTE) })
      expect(ids(await claim(store, now, 8, 2, new Map([[hog.id, 2]])))).toEqual([o2.id])
      // it answers: of 8 free slots it gets all but 2 (the reserve for whoever comes next)
      expect(ids(await claim(store, now, 8, 2, new Map([[hog.id, 2]]), [hog.id]))).toEqual(hogIds(2, 8))
      // the free slots bound the claim whatever the share
      expect(ids(await claim(store, now, 1, 10))).toEqual(hogIds(8, 9))
    })

    it('when merchants whose endpoints have not answered have backlogs due first, then each gets its unproven share and the next merchants` deliveries are found behind them', async () => {
      const store = ctx.store()
      const [first, second, other] = [
        await givenMerchant(store),
        await givenMerchant(store),
        await givenMerchant(store),
      ]
      const backlog = async (m: MerchantId, from: number) => {
        const b: Delivery[] = []
        for (let i = 0; i < 20; i++)
          b.push(await givenDelivery(store, await givenInvoice(store, m), { nextAttemptAt: at(from + i * 1000) }))
        return b
      }
      const [b1, b2] = [await backlog(first.id, 0), await backlog(second.id, 30_000)]
      const o1 = await givenDelivery(store, await givenInvoice(store, other.id), { nextAttemptAt: at(MINUTE) })
      const now = at(2 * MINUTE)
      // 8 free slots, 4 an answering merchant, 1 one not answering: one of each backlog, then the other's
      expect(ids(await claim(store, now, 8, 4, new Map(), [], 1))).toEqual([b1[0]!.id, b2[0]!.id, o1.id])
      // the first holds its unproven share: the second's next
      const o2 = await givenDelivery(store, await givenInvoice(store, other.id), { nextAttemptAt: at(MINUTE) })
      expect(ids(await claim(store, now, 8, 4, new Map([[first.id, 1]]), [], 1))).toEqual([b2[1]!.id, o2.id])
      // the first answers now: of 12 free slots, its whole share of 4 and the second's next, then beyond its share
      // all but a reserve of 4
      const hog = (n: number, m: number) => b1.slice(n, m).map((d) => d.id)
      expect(ids(await claim(store, now, 12, 4, new Map([[first.id, 1]]), [first.id], 1))).toEqual([
        ...hog(1, 4),
        b2[2]!.id,
        ...hog(4, 8),
      ])
    })

    it('when an attempt is recorded, then settle applies it only while the claim holds, and the attempts read back oldest first', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const d = await givenDelivery(store, await givenInvoice(store, m.id))
      const [c] = await claim(store, at(MINUTE))
      const [a1, a2] = ascendingIds(2)
      const first = { id: a1!, at: at(MINUTE), statusCode: 503, latencyMs: 12, error: 'HTTP 503' }
      const ok = await store.transaction(async (tx) => {
        await tx.deliveries.addAttempt(d.id, first)
        return tx.deliveries.settle(c!, {
          status: 'pending',
          attemptCount: 1,
          nextAttemptAt: at(2 * MINUTE),
          updatedAt: at(MINUTE),
        })
      })
      expect(ok).toBe(true)
      expect(await settle(store, c!, 'succeeded')).toBe(false) // the claim ended with the first settle
      expect(await store.deliveries.findById(d.id)).toMatchObject({
        status: 'pending',
        attemptCount: 1,
        nextAttemptAt: at(2 * MINUTE),
        attempts: [first],
      })

      const [c2] = await claim(store, at(2 * MINUTE))
      expect(c2!.attemptCount).toBe(1)
      const second = {
        id: a2!,
        at: at(2 * MINUTE),
        statusCode: null,
        latencyMs: 15_000,
        error: 'timeout: no answer within 15 s',
      }
      await store.transaction((tx) => tx.deliveries.addAttempt(d.id, second))
      expect(await settle(store, c2!, 'succeeded')).toBe(true)
      expect(await store.deliveries.findById(d.id)).toMatchObject({
        status: 'succeeded',
        attemptCount: 2,
        nextAttemptAt: null,
        attempts: [first, second],
      })
    })

    it('when a redelivery is asked while an attempt is under way, then nothing changes and that attempt settles it; once its lease has run out (a dead dispatcher`s), it is requeued and the old claim can no longer settle it', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const d = await givenDelivery(store, await givenInvoice(store, m.id))
      const [c] = await claim(store, at(MINUTE))
      // under way: requeued now, it was due at once and sent a second time beside the running attempt
      expect(await store.transaction((tx) => tx.deliveries.requeue(d.id, at(MINUTE)))).toBe(false)
      expect(await claim(store, at(MINUTE))).toEqual([])
      expect(await settle(store, c!, 'failed')).toBe(true)
      // settled: requeued, due at once with a new run of the schedule
      expect(await store.transaction((tx) => tx.deliveries.requeue(d.id, at(2 * MINUTE)))).toBe(true)
      expect(await store.deliveries.findById(d.id)).toMatchObject({
        status: 'pending',
        attemptCount: 0,
        nextAttemptAt: at(2 * MINUTE),
      })
      // a claim whose lease ran out (its dispatcher died) does not stop a redelivery, and cannot settle after it
      const [stale] = await claim(store, at(2 * MINUTE))
      const afterLease = new Date(stale!.leaseUntil.getTime())
      expect(await store.transaction((tx) => tx.deliveries.requeue(d.id, afterLease))).toBe(true)
      expect(await settle(store, stale!, 'failed')).toBe(false)
      expect(await claim(store, afterLease)).toEqual([expect.objectContaining({ id: d.id, attemptCount: 0 })])
      expect(await store.transaction((tx) => tx.deliveries.requeue(randomUUID() as DeliveryId, T0))).toBe(false)
    })

    it('when an attempt is recorded twice (a COMMIT that succeeded but answered with an error is retried), then it is one attempt and no error', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const d = await givenDelivery(store, await givenInvoice(store, m.id))
      const [id] = ascendingIds(1)
      const attempt = { id: id!, at: at(MINUTE), statusCode: 200, latencyMs: 5, error: null }
      await store.transaction((tx) => tx.deliveries.addAttempt(d.id, attempt))
      await store.transaction((tx) => tx.deliveries.addAttempt(d.id, attempt))
      expect((await store.deliveries.findById(d.id))?.attempts).toEqual([attempt])
    })

    it('when a claim is released (shutdown), then the delivery is due again at once with no attempt counted', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const d = await givenDelivery(store, await givenInvoice(store, m.id))
      const [c] = await claim(store, at(MINUTE))
      expect(await store.transaction((tx) => tx.deliveries.release(c!))).toBe(true)
      expect(await store.transaction((tx) => tx.deliveries.release(c!))).toBe(false)
      expect(await claim(store, at(MINUTE))).toEqual([expect.objectContaining({ id: d.id, attemptCount: 0 })])
    })

    it('when every claim is released (a start after a crash), then the claimed deliveries are due again at once and the count says how many', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      await drain(store)
      const a = await givenDelivery(store, await givenInvoice(store, m.id))
      const b = await givenDelivery(store, await givenInvoice(store, m.id))
      const claimed = await claim(store, at(MINUTE))
      expect(ids(claimed).sort()).toEqual([a.id, b.id].sort())
      expect(await claim(store, at(MINUTE))).toEqual([]) // leased: not due before the lease runs out
      expect(await store.transaction((tx) => tx.deliveries.releaseAll())).toBe(2)
      expect(ids(await claim(store, at(MINUTE))).sort()).toEqual([a.id, b.id].sort())
      const again = await store.transaction((tx) => tx.deliveries.releaseAll())
      expect(again).toBe(2)
      for (const c of await claim(store, at(MINUTE))) await settle(store, c, 'succeeded')
      expect(await store.transaction((tx) => tx.deliveries.releaseAll())).toBe(0) // settled ones hold no claim
    })

    it('when dispatchers claim concurrently, then no delivery is claimed twice', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const written = await Promise.all(
        Array.from({ length: 30 }, async () => givenDelivery(store, await givenInvoice(store, m.id))),
      )
      const claims = await Promise.all(Array.from({ length: 6 }, () => claim(store, at(MINUTE), 10)))
      const all = claims.flatMap(ids)
      expect(all).toHaveLength(30)
      expect(new Set(all).size).toBe(30)
      expect(new Set(all)).toEqual(new Set(ids(written)))
    })

    it('when dispatchers claim concurrently while a merchant is at its share, then no delivery is claimed twice and every claim keeps the shares', async () => {
      const store = ctx.store()
      const [hog, a, b] = [await givenMerchant(store), await givenMerchant(store), await givenMerchant(store)]
      for (let i = 0; i < 30; i++)
        await givenDelivery(store, await givenInvoice(store, hog.id), { nextAttemptAt: at(i * 1000) })
      const others: Delivery[] = []
      for (const m of [a, b])
        for (let i = 0; i < 10; i++)
          others.push(await givenDelivery(store, await givenInvoice(store, m.id), { nextAttemptAt: at(MINUTE + i) }))
      // the hog's backlog comes first and it has its 2 in flight on every dispatcher: each claim seeks the others
      const claims = await Promise.all(
        Array.from({ length: 6 }, () => claim(store, at(2 * MINUTE), 6, 2, new Map([[hog.id, 2]]))),
      )
      for (const c of claims) {
        expect(c.filter((d) => d.merchantId === hog.id)).toEqual([])
        expect(c.filter((d) => d.merchantId === a.id).length).toBeLessThanOrEqual(2)
        expect(c.filter((d) => d.merchantId === b.id).length).toBeLessThanOrEqual(2)
      }
      const all = claims.flatMap(ids)
      expect(all).toHaveLength(20)
      expect(new Set(all)).toEqual(new Set(ids(others)))
    })

    it('when the log is listed, then it is the merchant`s, newest first, paged by (created_at, id) and filtered by invoice and status', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const other = await givenMerchant(store)
      const a = await givenInvoice(store, m.id)
      const b = await givenInvoice(store, m.id)
      const [x, y] = ascendingIds<DeliveryId>(2)
      const d1 = await givenDelivery(store, a, {
        type: 'invoice.hold',
        createdAt: at(MINUTE),
        status: 'succeeded',
        nextAttemptAt: null,
      })
      const d2 = await givenDelivery(store, a, {
        id: x!,
        createdAt: at(2 * MINUTE),
        status: 'failed',
        nextAttemptAt: null,
      })
      const d3 = await givenDelivery(store, b, { id: y!, createdAt: at(2 * MINUTE) })
      await givenDelivery(store, await givenInvoice(store, other.id), { createdAt: at(3 * MINUTE) })
      const list = (q: Partial<Parameters<Store['deliveries']['list']>[0]> = {}) =>
        store.deliveries.list({ merchantId: m.id, limit: 10, ...q })

      expect(ids(await list())).toEqual([d3.id, d2.id, d1.id])
      expect(ids(await list({ limit: 2 }))).toEqual([d3.id, d2.id])
      expect(ids(await list({ after: { createdAt: d3.createdAt, id: d3.id } }))).toEqual([d2.id, d1.id])
      expect(ids(await list({ invoiceId: a.id }))).toEqual([d2.id, d1.id])
      expect(ids(await list({ status: 'failed' }))).toEqual([d2.id])
      expect(ids(await list({ status: 'pending', invoiceId: a.id }))).toEqual([])
      expect(ids(await list({ invoiceId: b.id, status: 'pending' }))).toEqual([d3.id])
    })

    it('when deliveries wait, then queueStats counts the pending ones and dates the oldest due one that is not waiting behind another', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      await givenDelivery(store, inv, { createdAt: at(MINUTE), nextAttemptAt: at(4 * MINUTE) }) // a retry due later
      await givenDelivery(store, inv, { createdAt: at(2 * MINUTE), nextAttemptAt: at(2 * MINUTE) }) // blocked behind it
      await givenDelivery(store, await givenInvoice(store, m.id), {
        createdAt: at(3 * MINUTE),
        nextAttemptAt: at(3 * MINUTE),
      })
      await givenDelivery(store, await givenInvoice(store, m.id), { status: 'succeeded', nextAttemptAt: null })
      const stats = await store.deliveries.queueStats(at(3 * MINUTE))
      expect(stats.pending).toBe(3)
      expect(stats.oldestDueAt).toEqual(at(3 * MINUTE))
      expect((await store.deliveries.queueStats(at(5 * MINUTE))).oldestDueAt).toEqual(at(3 * MINUTE))
      expect((await store.deliveries.queueStats(at(MINUTE))).oldestDueAt).toBeNull()
    })

    it('when an event already has a delivery, then a second one for it is refused', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const d = await givenDelivery(store, await givenInvoice(store, m.id))
      const dup = { ...d, id: randomUUID() as DeliveryId, eventId: d.eventId as EventId }
      await expect(store.transaction((tx) => tx.deliveries.insert(dup, '{}'))).rejects.toThrow()
    })
  })
}
