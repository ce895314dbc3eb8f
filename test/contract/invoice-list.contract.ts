/** The Store contract for listing invoices: newest first, cursor pages, ranges and read-status filters (docs/api.md#list-invoices, docs/api.md#getinfo). */
import { describe, expect, it } from 'vitest'
import type { MerchantId } from '../../src/domain/ids.js'
import type { Invoice, Status } from '../../src/domain/invoice.js'
import type { InvoiceListQuery } from '../../src/ports/store.js'
import { ascendingIds, at, givenInvoice, givenMerchant, HOUR, MINUTE, T0, type ContractContext } from './fixtures.js'

export function describeInvoiceListContract(ctx: ContractContext): void {
  describe('invoices.list', () => {
    const query = (merchantId: MerchantId, over: Partial<InvoiceListQuery> = {}): InvoiceListQuery => ({
      merchantId,
      limit: 100,
      now: T0,
      ...over,
    })
    const ids = (list: Invoice[]) => list.map((i) => i.id)

    it('when listing, then the merchant`s invoices come newest first (created_at desc, id desc) and only theirs', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const other = await givenMerchant(store)
      const [x, y] = ascendingIds(2)
      const oldest = await givenInvoice(store, m.id, { createdAt: at(-2 * HOUR) })
      const tieLow = await givenInvoice(store, m.id, { id: x!, createdAt: at(-HOUR) })
      const tieHigh = await givenInvoice(store, m.id, { id: y!, createdAt: at(-HOUR) })
      const newest = await givenInvoice(store, m.id, { createdAt: at(-MINUTE) })
      await givenInvoice(store, other.id, { createdAt: at(-30 * MINUTE) })
      expect(ids(await store.invoices.list(query(m.id)))).toEqual([newest.id, tieHigh.id, tieLow.id, oldest.id])
    })

    it('when paging with a cursor, then each page continues strictly after the last row, also within equal created_at', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const sameTime = ascendingIds(3)
      const all: Invoice[] = []
      for (let i = 0; i < 4; i += 1)
        all.push(await givenInvoice(store, m.id, { createdAt: at(-i * HOUR - 10 * MINUTE) }))
      for (const id of sameTime) all.push(await givenInvoice(store, m.id, { id, createdAt: at(-HOUR) }))
      const expected = [...all]
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((i) => i.id)

      const seen: string[] = []
      let after: InvoiceListQuery['after']
      for (let page = 0; page < 10; page += 1) {
        const rows = await store.invoices.list(query(m.id, { limit: 2, ...(after === undefined ? {} : { after }) }))
        expect(rows.length).toBeLessThanOrEqual(2)
        seen.push(...ids(rows))
        const last = rows.at(-1)
        if (rows.length < 2 || last === undefined) break
        after = { createdAt: last.createdAt, id: last.id }
      }
      expect(seen).toEqual(expected)
    })

    it('when createdFrom and createdTo are given, then from is inclusive and to is exclusive', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const before = await givenInvoice(store, m.id, { createdAt: at(-HOUR - 1) })
      const atFrom = await givenInvoice(store, m.id, { createdAt: at(-HOUR) })
      const inside = await givenInvoice(store, m.id, { createdAt: at(-30 * MINUTE) })
      const atTo = await givenInvoice(store, m.id, { createdAt: T0 })
      const rows = await store.invoices.list(query(m.id, { createdFrom: at(-HOUR), createdTo: T0 }))
      expect(ids(rows)).toEqual([inside.id, atFrom.id])
      expect(ids(await store.invoices.list(query(m.id, { createdFrom: T0 })))).toEqual([atTo.id])
      expect(ids(await store.invoices.list(query(m.id, { createdTo: at(-HOUR) })))).toEqual([before.id])
    })

    it('when filtering by status, then the status as it reads at `now` decides (a pending one past expiry is expired)', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const mk = (status: Status, createdMin: number, expiresAt: Date) =>
        givenInvoice(store, m.id, { status, createdAt: at(-createdMin * MINUTE), expiresAt })
      const pendingLive = await mk('pending', 1, at(MINUTE))
      const pendingDueNow = await mk('pending', 2, T0) // expires exactly now: reads as expired
      const pendingPast = await mk('pending', 3, at(-MINUTE))
      const expired = await mk('expired', 4, at(-2 * MINUTE))
      const hold = await mk('hold', 5, at(-MINUTE)) // hold does not expire by expires_at
      const paid = await mk('paid', 6, at(-MINUTE))
      const failed = await mk('failed', 7, at(MINUTE))
      const by = async (status: Status) => ids(await store.invoices.list(query(m.id, { status })))

      expect(await by('pending')).toEqual([pendingLive.id])
      expect(await by('expired')).toEqual([pendingDueNow.id, pendingPast.id, expired.id])
      expect(await by('hold')).toEqual([hold.id])
      expect(await by('paid')).toEqual([paid.id])
      expect(await by('failed')).toEqual([failed.id])
      // read later, the live pending one has expired too
      expect(ids(await store.invoices.list(query(m.id, { status: 'pending', now: at(MINUTE) })))).toEqual([])
      expect(await store.invoices.list(query(m.id, { status: 'expired', now: at(MINUTE) }))).toHaveLength(4)
    })

    it('when a status filter, a range, a cursor and a limit combine, then all apply', async () => {
      const store = ctx.store()
      const m = await givenMerchant(store)
      const made: Invoice[] = []
      for (let i = 1; i <= 6; i += 1) {
        made.push(
          await givenInvoice(store, m.id, { status: i % 2 === 0 ? 'paid' : 'failed', createdAt: at(-i * MINUTE) }),
        )
      }
      const paid = made.filter((i) => i.status === 'paid') // created at -2, -4, -6 minutes
      const first = await store.invoices.list(query(m.id, { status: 'paid', createdTo: at(-MINUTE), limit: 1 }))
      expect(ids(first)).toEqual([paid[0]!.id])
      const next = await store.invoices.list(
        query(m.id, {
          status: 'paid',
          createdFrom: at(-5 * MINUTE),
          limit: 5,
          after: { createdAt: first[0]!.createdAt, id: first[0]!.id },
        }),
      )
      expect(ids(next)).toEqual([paid[1]!.id])
    })
  })
}
