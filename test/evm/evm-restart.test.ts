/**
 * A restart of the service while a stablecoin payment confirms (docs/stablecoins.md#detection): the cursor and the
 * transfers seen are in the database, so the new process goes on where the old one stopped and the invoice is paid
 * once. SQLite in a file, as a single-instance deployment runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAddress, type Address } from 'viem'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { api } from '../helpers/api.js'
import { startAnvil, type Anvil } from '../helpers/anvil.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { FakeClock } from '../helpers/fake-clock.js'
import { CONFIRMATIONS, deployFactoryByCli, evmEnv, setPayout, syncClock } from './evm-env.js'

const PAYOUT = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' as Address

let chain: Anvil
let dir: string
const apps: TestApp[] = []

beforeAll(async () => {
  chain = await startAnvil()
  dir = mkdtempSync(join(tmpdir(), 'evm-restart-'))
})

afterAll(async () => {
  for (const a of apps) await a.close()
  await chain?.stop()
  rmSync(dir, { recursive: true, force: true })
})

it('when the service restarts while a payment confirms, then the new process finishes it: paid once', async () => {
  const env = { ...evmEnv(chain, await deployFactoryByCli(chain)), DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}` }
  const clock = new FakeClock()
  const first = await buildTestApp(env, { clock })
  apps.push(first)
  const m = await first.merchant('Coin Shop')
  expect(await setPayout(first, m.id, PAYOUT)).toBe(0)
  await syncClock(first, chain)
  const id = await api(first).as(m).newInvoice({ amount: '7.00', currency: 'USD', service: 'usdc' })
  const qr = (await first.rt.store.invoices.findById(id as never))?.qrData ?? ''
  const deposit = getAddress(/address=(0x[0-9a-fA-F]{40})/.exec(qr)?.[1] ?? '')
  await chain.mint(chain.accounts.buyer.address, 7_000_000n)
  const hash = await chain.transfer(deposit, 7_000_000n)
  await first.sweep() // seen, 1 confirmation
  await first.close()

  await chain.mine(CONFIRMATIONS - 1)
  const second = await buildTestApp(env, { clock })
  apps.push(second)
  await second.sweep()
  const d = (await api(second).as(m).getInvoice(id)).body as unknown as {
    status: string
    payment: { tx_hash: string; confirmations: number }
  }
  expect(d.status).toBe('paid')
  expect(d.payment).toMatchObject({ tx_hash: hash, confirmations: CONFIRMATIONS })
  expect((await second.rt.store.events.listByInvoice(id as never)).map((e) => e.type)).toEqual(['invoice.paid'])
  expect(await chain.balanceOf(PAYOUT)).toBe(7_000_000n)
})
