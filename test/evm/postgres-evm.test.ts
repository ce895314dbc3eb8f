/**
 * Stablecoin detection by two instances over one PostgreSQL schema (docs/stablecoins.md#detection): the cursor's
 * lease lets one instance read the chain at a time, and whichever does, each payment is detected, paid and swept
 * once. Two runtimes in this process, each with its own pool and workers, racing their rounds. Needs
 * TEST_DATABASE_URL; without it the file skips, except in CI, where it fails.
 */
import { getAddress, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../helpers/api.js'
import { startAnvil, type Anvil } from '../helpers/anvil.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { FakeClock } from '../helpers/fake-clock.js'
import { createTestSchema, IS_CI, MISSING_IN_CI, TEST_DATABASE_URL, type TestSchema } from '../helpers/postgres.js'
import { CONFIRMATIONS, deployFactoryByCli, evmEnv, setPayout, syncClock } from './evm-env.js'

if (TEST_DATABASE_URL === undefined && IS_CI) {
  it('PostgreSQL in CI: TEST_DATABASE_URL is set', () => {
    throw new Error(MISSING_IN_CI)
  })
}

const PAYOUT = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' as Address
const INVOICES = 6

describe.skipIf(TEST_DATABASE_URL === undefined)('stablecoin detection by two instances over PostgreSQL', () => {
  const clock = new FakeClock()
  let chain: Anvil
  let schema: TestSchema
  let merchant: TestMerchant
  const instances: TestApp[] = []

  beforeAll(async () => {
    chain = await startAnvil()
    schema = await createTestSchema()
    const env = { ...evmEnv(chain, await deployFactoryByCli(chain)), DATABASE_URL: schema.url, DATABASE_POOL_SIZE: '4' }
    for (let i = 0; i < 2; i += 1) instances.push(await buildTestApp(env, { clock }))
    const first = instances[0] as TestApp
    merchant = await first.merchant('Coin Shop')
    expect(await setPayout(first, merchant.id, PAYOUT)).toBe(0)
  })

  afterAll(async () => {
    for (const t of instances) await t.close()
    await schema?.drop()
    await chain?.stop()
  })

  it('when both instances run their rounds at once, then each payment is detected, paid and swept once', async () => {
    const [a, b] = instances as [TestApp, TestApp]
    await syncClock(a, chain)
    const ids: string[] = []
    await chain.mint(chain.accounts.buyer.address, BigInt(INVOICES) * 1_000_000n)
    for (let i = 0; i < INVOICES; i += 1) {
      // created on either instance
      const id = await api(i % 2 === 0 ? a : b)
        .as(merchant)
        .newInvoice({ amount: '1.00', currency: 'USD', service: 'usdc' })
      const qr = (await a.rt.store.invoices.findById(id as never))?.qrData ?? ''
      await chain.transfer(getAddress(/address=(0x[0-9a-fA-F]{40})/.exec(qr)?.[1] ?? ''), 1_000_000n)
      ids.push(id)
    }
    await Promise.all([a.sweep(), b.sweep()])
    await chain.mine(CONFIRMATIONS)
    for (let round = 0; round < 3; round += 1) await Promise.all([a.sweep(), b.sweep()])
    for (const id of ids) {
      expect((await a.rt.store.events.listByInvoice(id as never)).map((e) => e.type)).toEqual(['invoice.paid'])
      expect(await a.rt.store.evm.listTransfers(id as never)).toHaveLength(1)
      expect((await a.rt.store.evm.findSweep(id as never))?.state).toBe('done')
    }
    expect(await chain.balanceOf(PAYOUT)).toBe(BigInt(INVOICES) * 1_000_000n)
  })
})
