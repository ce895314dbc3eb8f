/**
 * The Store contract: what every storage adapter must do, run once per database (docs/architecture.md#layers, test/contract).
 * Tests never assume an empty database (PostgreSQL runs share one): every id and order_id is fresh and
 * assertions look only at rows the test wrote.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../src/ports/store.js'
import { StoreUnavailableError } from '../../src/ports/store.js'
import { describeAccountContract } from './account.contract.js'
import { describeAttemptContract } from './attempt.contract.js'
import { describeRefundContract } from './refund.contract.js'
import { describeDeliveryContract } from './delivery.contract.js'
import { at, eventFixture, invoiceFixture, merchantFixture, MINUTE, type ContractContext } from './fixtures.js'
import { describeInvoiceListContract } from './invoice-list.contract.js'
import { describeInvoiceContract } from './invoice.contract.js'
import { describeOperatorContract, describeSignInThrottleContract } from './operator.contract.js'

export function describeStoreContract(name: string, open: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let current: Store | undefined
    const ctx: ContractContext = {
      store() {
        if (current === undefined) throw new Error('no store open')
        return current
      },
    }

    beforeEach(async () => {
      current = await open()
      await current.migrate()
    })

    afterEach(async () => {
      await current?.close()
      current = undefined
    })

    describe('lifecycle', () => {
      it('when migrate runs again on a migrated database, then it succeeds and the data stays usable', async () => {
        const store = ctx.store()
        const m = merchantFixture()
        await store.transaction((tx) => tx.merchants.insert(m))
        await store.migrate()
        await store.migrate()
        expect(await store.merchants.findById(m.id)).toEqual(m)
      })

      it('when the database answers, then ping resolves', async () => {
        await expect(ctx.store().ping()).resolves.toBeUndefined()
      })

      it('when the store is closed, then reads and writes reject with StoreUnavailableError', async () => {
        const store = await open()
        await store.migrate()
        const m = merchantFixture()
        await store.close()
        await expect(store.transaction((tx) => tx.merchants.insert(m))).rejects.toBeInstanceOf(StoreUnavailableError)
        await expect(store.merchants.findById(m.id)).rejects.toBeInstanceOf(StoreUnavailableError)
        // the hot lookups, which SQLite answers synchronously on its read-only connection
        await expect(store.invoices.findById(invoiceFixture(m.id).id)).rejects.toBeInstanceOf(StoreUnavailableError)
        await expect(store.invoices.findByOrderId(m.id, 'order-1')).rejects.toBeInstanceOf(StoreUnavailableError)
        await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError)
      })
    })

    describe('transaction', () => {
      it('when fn resolves, then transaction resolves to its value and its writes are committed', async () => {
        const store = ctx.store()
        const m = merchantFixture()
        const result = await store.transaction(async (tx) => {
          await tx.merchants.insert(m)
          return 'done'
        })
        expect(result).toBe('done')
        expect(await store.merchants.findById(m.id)).toEqual(m)
      })

      it('when fn reads inside the transaction, then it sees its own uncommitted writes', async () => {
        const store = ctx.store()
        const m = merchantFixture()
        const seen = await store.transaction(async (tx) => {
          await tx.merchants.insert(m)
          return tx.merchants.findById(m.id)
        })
        expect(seen).toEqual(m)
      })

      it('when fn throws after writing, then the same error propagates and nothing was written', async () => {
        const store = ctx.store()
        const m = merchantFixture()
        const inv = invoiceFixture(m.id)
        const event = eventFixture(inv)
        const boom = new Error('use case refused')
        await expect(
          store.transaction(async (tx) => {
            await tx.merchants.insert(m)
            await tx.invoices.insert(inv)
            await tx.events.append(event)
            throw boom
          }),
        ).rejects.toBe(boom)
        expect(await store.merchants.findById(m.id)).toBeUndefined()
        expect(await store.invoices.findById(inv.id)).toBeUndefined()
        expect(await store.events.listByInvoice(inv.id)).toEqual([])
      })

      it('when a statement violates a constraint, then the error is not StoreUnavailableError and the transaction rolls back', async () => {
        const store = ctx.store()
        const m = merchantFixture()
        await store.transaction((tx) => tx.merchants.insert(m))
        const other = merchantFixture()
        const err = await store
          .transaction(async (tx) => {
            await tx.merchants.insert(other)
            await tx.merchants.insert(m) // duplicate primary key
          })
          .then(
            () => undefined,
            (e: unknown) => e,
          )
        expect(err).toBeInstanceOf(Error)
        expect(err).not.toBeInstanceOf(StoreUnavailableError)
        expect(await store.merchants.findById(other.id)).toBeUndefined()
      })

      it('when transactions run concurrently, then each commits whole', async () => {
        const store = ctx.store()
        const m = merchantFixture()
        await store.transaction((tx) => tx.merchants.insert(m))
        const invoices = Array.from({ length: 20 }, (_, i) => invoiceFixture(m.id, { createdAt: at(i * MINUTE) }))
        await Promise.all(
          invoices.map((inv) =>
            store.transaction(async (tx) => {
              await tx.invoices.insert(inv)
              await tx.events.append(eventFixture(inv, { type: 'invoice.hold' }))
            }),
          ),
        )
        for (const inv of invoices) expect(await store.events.listByInvoice(inv.id)).toHaveLength(1)
      })
    })

    describeInvoiceContract(ctx)
    describeInvoiceListContract(ctx)
    describeAccountContract(ctx)
    describeDeliveryContract(ctx)
    describeAttemptContract(ctx)
    describeOperatorContract(ctx)
    describeSignInThrottleContract(ctx)
    describeRefundContract(ctx)
  })
}
