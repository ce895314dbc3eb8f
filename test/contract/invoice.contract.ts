/** The Store contract for writing and finding invoices, and for their outbox events (docs/api.md#idempotency, docs/api.md#getinfo, docs/api.md#statuses). */
import { describe, expect, it } from 'vitest'
import type { EventId } from '../../src/domain/ids.js'
import type { Invoice } from '../../src/domain/invoice.js'
import { invoiceView, type InvoiceInfo } from '../../src/domain/invoice-view.js'
import type { Minor } from '../../src/domain/money.js'
import { StoreUnavailableError } from '../../src/ports/store.js'
import {
  ascendingIds,
  at,
  eventFixture,
  givenInvoice,
  givenMerchant,
  invoiceFixture,
  merchantFixture,
  MINUTE,
  T0,
  type ContractContext,
} from './fixtures.js'

export function describeInvoiceContract(ctx: ContractContext): void {
  describe('invoices.insert', () => {
    it('when a new invoice is inserted, then findById returns every field as written', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const full = await givenInvoice(store, m.id, {
        comment: 'Заказ №1 <b>',
        callbackUrl: 'https://shop.test/hook',
        successUrl: 'https://shop.test/ok',
        failUrl: 'https://shop.test/fail',
        amount: 9_007_199_254_740_991 as Minor, // MAX_MINOR survives the round trip exactly
        currency: 'JPY',
        service: 'sbp',
        status: 'paid',
        credited: 9_007_199_254_740_000 as Minor,
        paidAt: at(5 * MINUTE),
        heldAt: at(2 * MINUTE),
        updatedAt: at(5 * MINUTE),
      })
      const bare = await givenInvoice(store, m.id)
      expect(await store.invoices.findById(full.id)).toEqual(full)
      expect(await store.invoices.findById(bare.id)).toEqual(bare)
    })

    it('when no invoice has the id, then findById returns undefined', async () => {
      const m = await givenMerchant(ctx.store())
      expect(await ctx.store().invoices.findById(invoiceFixture(m.id).id)).toBeUndefined()
    })

    for (const live of ['pending', 'hold', 'paid'] as const) {
      it(`when a ${live} invoice holds the order_id, then another insert returns live_order_exists and writes nothing`, async () => {
        const store = ctx.store()
        const m = await givenMerchant(store)
        const first = await givenInvoice(store, m.id, { status: live })
        const second = invoiceFixture(m.id, { orderId: first.orderId, createdAt: at(MINUTE) })
        expect(await store.transaction((tx) => tx.invoices.insert(second))).toBe('live_order_exists')
        expect(await store.invoices.findById(second.id)).toBeUndefined()
        expect(await store.invoices.findByOrderId(m.id, first.orderId)).toEqual(first)
      })
    }

    for (const final of ['expired', 'failed'] as const) {
      it(`when the live invoice became ${final}, then a new invoice for the order_id is inserted and is the newest`, async () => {
        const store = ctx.store()
        const m = await givenMerchant(store)
        const first = await givenInvoice(store, m.id)
        const moved: Invoice = { ...first, status: final, updatedAt: at(MINUTE) }
        expect(await store.transaction((tx) => tx.invoices.update(moved, 'pending'))).toBe(true)
        const second = invoiceFixture(m.id, { orderId: first.orderId, createdAt: at(2 * MINUTE) })
        expect(await store.transaction((tx) => tx.invoices.insert(second))).toBe('inserted')
        expect(await store.invoices.findByOrderId(m.id, first.orderId)).toEqual(second)
        expect(await store.transaction((tx) => tx.invoices.findLive(m.id, first.orderId))).toEqual(second)
        const third = invoiceFixture(m.id, { orderId: first.orderId, createdAt: at(3 * MINUTE) })
        expect(await store.transaction((tx) => tx.invoices.insert(third))).toBe('live_order_exists')
      })
    }

    it('when another merchant uses the same order_id, then both invoices are inserted', async () => {
      const store = ctx.store()
      const a = await givenMerchant(store)
      const b = await givenMerchant(store)
      const first = await givenInvoice(store, a.id)
      const second = await givenInvoice(store, b.id, { orderId: first.orderId })
      expect(await store.invoices.findByOrderId(b.id, first.orderId)).toEqual(second)
      expect(await store.invoices.findByOrderId(a.id, first.orderId)).toEqual(first)
    })

    it('when the invoice id already exists, then insert throws (only the live-order conflict is absorbed)', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const first = await givenInvoice(store, m.id)
      const sameId = invoiceFixture(m.id, { id: first.id }) // another order_id
      const err = await store
        .transaction((tx) => tx.invoices.insert(sameId))
        .then(
          () => undefined,
          (e: unknown) => e,
        )
      expect(err).toBeInstanceOf(Error)
      expect(err).not.toBeInstanceOf(StoreUnavailableError)
      expect(await store.invoices.findById(first.id)).toEqual(first)
    })

    it('when the merchant does not exist, then insert throws', async () => {
      const store = ctx.store()
      const orphan = invoiceFixture(merchantFixture().id)
      await expect(store.transaction((tx) => tx.invoices.insert(orphan))).rejects.toThrow()
      expect(await store.invoices.findById(orphan.id)).toBeUndefined()
    })

    it('when many transactions insert the same order_id at once, then exactly one invoice is inserted', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const orderId = `order-${T0.getTime()}-${m.id}`
      const candidates = Array.from({ length: 16 }, () => invoiceFixture(m.id, { orderId }))
      const results = await Promise.all(candidates.map((inv) => store.transaction((tx) => tx.invoices.insert(inv))))
      expect(results.filter((r) => r === 'inserted')).toHaveLength(1)
      expect(results.filter((r) => r === 'live_order_exists')).toHaveLength(15)
      const winner = candidates[results.indexOf('inserted')]
      expect(await store.invoices.findByOrderId(m.id, orderId)).toEqual(winner)
    })
  })

  describe('invoices.update (compare-and-set on status)', () => {
    it('when the stored status is the expected one, then every mutable field is written and update returns true', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      const paid: Invoice = {
        ...inv,
        status: 'paid',
        credited: 9800 as Minor,
        paidAt: at(MINUTE),
        updatedAt: at(MINUTE),
      }
      expect(await store.transaction((tx) => tx.invoices.update(paid, 'pending'))).toBe(true)
      expect(await store.invoices.findById(inv.id)).toEqual(paid)
    })

    it('when the stored status is not the expected one, then nothing is written and update returns false', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id, { status: 'failed' })
      const paid: Invoice = { ...inv, status: 'paid', credited: inv.amount, paidAt: at(MINUTE), updatedAt: at(MINUTE) }
      expect(await store.transaction((tx) => tx.invoices.update(paid, 'pending'))).toBe(false)
      expect(await store.invoices.findById(inv.id)).toEqual(inv)
    })

    it('when two transitions race from the same status, then only the first one wins', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id, { status: 'hold', heldAt: at(MINUTE) })
      const captured: Invoice = {
        ...inv,
        status: 'paid',
        credited: inv.amount,
        paidAt: at(2 * MINUTE),
        updatedAt: at(2 * MINUTE),
      }
      const cancelled: Invoice = { ...inv, status: 'failed', updatedAt: at(2 * MINUTE) }
      const [a, b] = await Promise.all([
        store.transaction((tx) => tx.invoices.update(captured, 'hold')),
        store.transaction((tx) => tx.invoices.update(cancelled, 'hold')),
      ])
      expect([a, b].filter(Boolean)).toHaveLength(1)
      expect(await store.invoices.findById(inv.id)).toEqual(a ? captured : cancelled)
    })

    it('when no invoice has the id, then update returns false', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      expect(await store.transaction((tx) => tx.invoices.update(invoiceFixture(m.id), 'pending'))).toBe(false)
    })
  })

  describe('invoices.findByOrderId / findLive', () => {
    it('when the order has several invoices, then findByOrderId returns the one created last', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const [lowId, highId] = ascendingIds(2)
      const old = await givenInvoice(store, m.id, { status: 'failed' })
      await givenInvoice(store, m.id, { id: highId!, orderId: old.orderId, status: 'expired', createdAt: at(MINUTE) })
      const newest = await givenInvoice(store, m.id, { id: lowId!, orderId: old.orderId, createdAt: at(2 * MINUTE) })
      expect(await store.invoices.findByOrderId(m.id, old.orderId)).toEqual(newest)
    })

    it('when two invoices of the order share created_at, then findByOrderId returns the greater id', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const [lowId, highId] = ascendingIds(2)
      const high = await givenInvoice(store, m.id, { id: highId!, status: 'expired' })
      await givenInvoice(store, m.id, { id: lowId!, orderId: high.orderId, status: 'failed' })
      expect(await store.invoices.findByOrderId(m.id, high.orderId)).toEqual(high)
    })

    it('when the merchant has no such order, then findByOrderId returns undefined, also for another merchant`s order', async () => {
      const store = ctx.store()
      const a = await givenMerchant(store)
      const b = await givenMerchant(store)
      const inv = await givenInvoice(store, a.id)
      expect(await store.invoices.findByOrderId(b.id, inv.orderId)).toBeUndefined()
      expect(await store.invoices.findByOrderId(a.id, 'no-such-order')).toBeUndefined()
    })

    it('when only final invoices hold the order, then findLive returns undefined; otherwise the live one, in a transaction or outside', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const failed = await givenInvoice(store, m.id, { status: 'failed' })
      await givenInvoice(store, m.id, { orderId: failed.orderId, status: 'expired', createdAt: at(MINUTE) })
      expect(await store.transaction((tx) => tx.invoices.findLive(m.id, failed.orderId))).toBeUndefined()
      expect(await store.invoices.findLive(m.id, failed.orderId)).toBeUndefined()
      const live = await givenInvoice(store, m.id, { orderId: failed.orderId, status: 'hold', createdAt: at(-MINUTE) })
      expect(await store.transaction((tx) => tx.invoices.findLive(m.id, failed.orderId))).toEqual(live)
      expect(await store.invoices.findLive(m.id, failed.orderId)).toEqual(live)
      // another merchant's order with the same order_id, and the same order_id in another case, are not it
      const other = await givenMerchant(store)
      expect(await store.invoices.findLive(other.id, failed.orderId)).toBeUndefined()
      expect(await store.invoices.findLive(m.id, failed.orderId.toUpperCase())).toBeUndefined()
    })
  })

  describe('invoices.findInfo (getInfo by invoice_id)', () => {
    /** What getInfo's view reads of an invoice (docs/api.md#getinfo), taken from the whole invoice. */
    const infoOf = (inv: Invoice): InvoiceInfo => ({
      id: inv.id,
      merchantId: inv.merchantId,
      orderId: inv.orderId,
      amount: inv.amount,
      currency: inv.currency,
      status: inv.status,
      service: inv.service,
      payUrl: inv.payUrl,
      qrData: inv.qrData,
      credited: inv.credited,
      expiresAt: inv.expiresAt,
      paidAt: inv.paidAt,
      createdAt: inv.createdAt,
      ...(inv.paymentSeenAt !== undefined && { paymentSeenAt: inv.paymentSeenAt }),
    })

    it('when the merchant owns the invoice, then findInfo returns what its view reads, and that view is findById`s', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const paid = await givenInvoice(store, m.id, {
        status: 'paid',
        currency: 'JPY',
        amount: 9_007_199_254_740_991 as Minor,
        credited: 9_007_199_254_740_000 as Minor,
        paidAt: at(5 * MINUTE),
      })
      // a payment seen before expiry keeps a pending invoice pending past it (readStatus)
      const seen = await givenInvoice(store, m.id, { paymentSeenAt: at(MINUTE) })
      const plain = await givenInvoice(store, m.id)
      for (const inv of [paid, seen, plain]) {
        // (where lookups by id are batched, the info is the whole invoice: a superset)
        const info = await store.invoices.findInfo(m.id, inv.id)
        expect(info).toMatchObject(infoOf(inv))
        const late = at(3 * 3_600_000)
        expect(invoiceView(info as InvoiceInfo, late)).toEqual(invoiceView(inv, late))
      }
    })

    it('when another merchant owns the invoice, or none has the id, then findInfo returns undefined', async () => {
      const store = ctx.store()
      const a = await givenMerchant(store)
      const b = await givenMerchant(store)
      const inv = await givenInvoice(store, a.id)
      expect(await store.invoices.findInfo(b.id, inv.id)).toBeUndefined()
      expect(await store.invoices.findInfo(a.id, invoiceFixture(a.id).id)).toBeUndefined()
      // several lookups in one pass (PostgreSQL answers them with one query): each gets its own answer
      const other = await givenInvoice(store, b.id)
      expect(
        await Promise.all([
          store.invoices.findInfo(a.id, inv.id),
          store.invoices.findInfo(b.id, inv.id),
          store.invoices.findInfo(b.id, other.id),
          store.invoices.findInfo(a.id, other.id),
        ]),
      ).toMatchObject([infoOf(inv), undefined, infoOf(other), undefined])
    })
  })

  describe('events', () => {
    it('when events are appended, then listByInvoice returns that invoice`s events oldest first (then by id)', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      const other = await givenInvoice(store, m.id)
      const [e1, e2] = ascendingIds<EventId>(2)
      const later = eventFixture(inv, { type: 'invoice.paid', createdAt: at(2 * MINUTE) })
      const tieLow = eventFixture(inv, { id: e1!, type: 'invoice.hold', createdAt: at(MINUTE) })
      const tieHigh = eventFixture(inv, { id: e2!, type: 'invoice.hold', createdAt: at(MINUTE) })
      await store.transaction(async (tx) => {
        await tx.events.append(later)
        await tx.events.append(tieHigh)
        await tx.events.append(tieLow)
        await tx.events.append(eventFixture(other))
      })
      expect(await store.events.listByInvoice(inv.id)).toEqual([tieLow, tieHigh, later])
      expect(await store.events.listByInvoice(invoiceFixture(m.id).id)).toEqual([])
    })

    it('when a transition and its event are written in one transaction, then both commit together', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const inv = await givenInvoice(store, m.id)
      const paid: Invoice = { ...inv, status: 'paid', credited: inv.amount, paidAt: at(MINUTE), updatedAt: at(MINUTE) }
      const event = eventFixture(inv, { createdAt: at(MINUTE) })
      await store.transaction(async (tx) => {
        expect(await tx.invoices.update(paid, 'pending')).toBe(true)
        await tx.events.append(event)
      })
      expect(await store.invoices.findById(inv.id)).toEqual(paid)
      expect(await store.events.listByInvoice(inv.id)).toEqual([event])
    })

    it('when the invoice does not exist, then append throws', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      await expect(store.transaction((tx) => tx.events.append(eventFixture(invoiceFixture(m.id))))).rejects.toThrow()
    })
  })
}
