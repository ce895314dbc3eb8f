/**
 * Stablecoin payments on a real local chain (docs/stablecoins.md): anvil with the tests' 6-decimal token, the
 * factory deployed by the CLI, real transfers from a buyer account, the detector and the sweeper run by the
 * workers' tick. Blocks are mined explicitly; nothing sleeps but the RPC-down case (one 1 s timeout).
 */
import { encodeFunctionData, getAddress, parseAbi, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, type TestClient } from '../helpers/api.js'
import { artifact, startAnvil, type Anvil } from '../helpers/anvil.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { expectTotalsMatch } from '../helpers/daily-totals.js'
import { CONFIRMATIONS, deployFactoryByCli, evmEnv, setPayout, syncClock } from './evm-env.js'

const PAYOUT = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' as Address // anvil's account 4: no key used here
const USDC = 1_000_000n

let chain: Anvil
let factory: string
let t: TestApp
let m: TestMerchant
let client: TestClient

interface Detail {
  status: string
  qr_data: string
  expired_at: string
  payment?: { received: string; confirmations: number; confirmations_required: number; tx_hash: string | null }
  overpaid_amount?: string | null
}

async function detail(id: string): Promise<Detail> {
  const res = await client.getInvoice(id)
  expectStatus(res, 200)
  return res.body as unknown as Detail
}

/** Time passes on the service's clock and on the chain alike: a block is mined at the new time. */
async function passTime(seconds: number): Promise<void> {
  t.clock.advance(seconds)
  await chain.test.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(t.clock.now().getTime() / 1000)) })
  await chain.mine(1)
}

const depositOf = (d: Detail): Address => getAddress(/address=(0x[0-9a-fA-F]{40})/.exec(d.qr_data)?.[1] ?? '')

async function events(id: string): Promise<string[]> {
  return (await t.rt.store.events.listByInvoice(id as never)).map((e) => e.type)
}

/** A new invoice of `amount` USD on the usdc service, created at the chain's time; its id and deposit address. */
async function invoice(amount: string, lifetime?: number): Promise<{ id: string; deposit: Address }> {
  await syncClock(t, chain)
  const id = await client.newInvoice({
    amount,
    currency: 'USD',
    service: 'usdc',
    callback_url: 'https://shop.example/hooks',
    ...(lifetime !== undefined && { lifetime }),
  })
  return { id, deposit: depositOf(await detail(id)) }
}

beforeAll(async () => {
  chain = await startAnvil()
  factory = await deployFactoryByCli(chain)
  t = await buildTestApp(evmEnv(chain, factory), { db: 'sqlite' })
  m = await t.merchant('Coin Shop')
  client = api(t).as(m)
  expect(await setPayout(t, m.id, PAYOUT)).toBe(0)
  await chain.mint(chain.accounts.buyer.address, 1_000n * USDC)
})

afterAll(async () => {
  await t?.close()
  await chain?.stop()
})

describe('creating a stablecoin invoice', () => {
  it('when created, then qr_data is an EIP-681 transfer to the address the factory deploys for it, in token units', async () => {
    const { id, deposit } = await invoice('12.34')
    const d = await detail(id)
    expect(d.qr_data).toBe(
      `ethereum:${getAddress(chain.token)}@${chain.chain.id}/transfer?address=${deposit}&uint256=12340000`,
    )
    // the address computed without any network call is the one the factory computes on chain
    const salt = (await t.rt.store.evm.findDeposit(id as never))?.salt as Hex
    const onChain = await chain.client.readContract({
      address: factory as Address,
      abi: artifact('ForwarderFactory').abi,
      functionName: 'forwarderAddress',
      args: [PAYOUT, salt],
    })
    expect(onChain).toBe(deposit)
    expect(d.status).toBe('pending')
    expect(d.payment).toEqual({ received: '0', confirmations: 0, confirmations_required: CONFIRMATIONS, tx_hash: null })
  })

  it('when the merchant has no payout address for the service, then 400 validation_failed naming service', async () => {
    const other = await t.merchant('No Wallet')
    const res = await api(t)
      .as(other)
      .createInvoice({ order_id: 'np-1', amount: '1.00', currency: 'USD', service: 'usdc' })
    const p = expectProblem(res, 400, 'validation_failed')
    expect(p.errors?.map((e) => e.field)).toEqual(['service'])
  })

  it("when the currency is not the token's peg, then 400 validation_failed naming currency", async () => {
    const res = await client.createInvoice({ order_id: 'eur-1', amount: '1.00', currency: 'EUR', service: 'usdc' })
    const p = expectProblem(res, 400, 'validation_failed')
    expect(p.errors?.map((e) => e.field)).toEqual(['currency'])
  })

  it('when a payout address has a wrong checksum, then set-payout refuses it', async () => {
    const wrong = PAYOUT.replace('AAf54', 'aaf54') // one letter's case: the EIP-55 checksum no longer holds
    expect(await setPayout(t, m.id, wrong)).toBe(2)
    expect(await setPayout(t, m.id, PAYOUT.toLowerCase())).toBe(0)
  })
})

describe('detecting payments', () => {
  it('when the exact amount arrives and confirms, then paid with its event, and the sweeper moves it to the payout address', async () => {
    const { id, deposit } = await invoice('10.00')
    const before = await chain.balanceOf(PAYOUT)
    const hash = await chain.transfer(deposit, 10n * USDC)
    await t.sweep()
    let d = await detail(id)
    expect(d.status).toBe('pending')
    expect(d.payment).toEqual({
      received: '10',
      confirmations: 1,
      confirmations_required: CONFIRMATIONS,
      tx_hash: hash,
    })
    await chain.mine(CONFIRMATIONS - 1)
    await t.sweep()
    d = await detail(id)
    expect(d.status).toBe('paid')
    expect(d.overpaid_amount).toBeNull()
    expect(await events(id)).toEqual(['invoice.paid'])
    // its webhook is queued for the shop's callback_url
    const hooks = await client.listDeliveries({ invoice_id: id })
    expectStatus(hooks, 200)
    expect(hooks.body.data.map((x) => x.type)).toEqual(['invoice.paid'])
    // swept in the same tick: the factory deployed the forwarder and forwarded everything
    expect(await chain.balanceOf(PAYOUT)).toBe(before + 10n * USDC)
    expect(await chain.balanceOf(deposit)).toBe(0n)
    expect((await t.rt.store.evm.findSweep(id as never))?.state).toBe('done')
    // more rounds change nothing
    await chain.mine(2)
    await t.sweep()
    expect(await events(id)).toEqual(['invoice.paid'])
  })

  it('when less arrives, then pending with what was received; a top-up makes it paid', async () => {
    const { id, deposit } = await invoice('5.00')
    await chain.transfer(deposit, 2n * USDC)
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    let d = await detail(id)
    expect(d.status).toBe('pending')
    expect(d.payment?.received).toBe('2')
    await chain.transfer(deposit, 3n * USDC)
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    d = await detail(id)
    expect(d.status).toBe('paid')
    expect(d.payment?.received).toBe('5')
    expect(await events(id)).toEqual(['invoice.paid'])
  })

  it('when more arrives, then paid with overpaid_amount', async () => {
    const { id, deposit } = await invoice('1.00')
    await chain.transfer(deposit, 1_500_000n)
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    const d = await detail(id)
    expect(d.status).toBe('paid')
    expect(d.overpaid_amount).toBe('0.5')
  })

  it('when the merchant asks to refund a paid stablecoin invoice, then 409 refund_unsupported and no refund exists (docs/refunds.md#providers)', async () => {
    const { id, deposit } = await invoice('1.00')
    await chain.transfer(deposit, 1_000_000n)
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    expect((await detail(id)).status).toBe('paid')
    expectProblem(await client.createRefund(id, { amount: '0.50' }, 'evm-refund-1'), 409, 'refund_unsupported')
    const refunds = await client.listRefunds(id)
    expectStatus(refunds, 200)
    expect(refunds.body).toMatchObject({ data: [] })
    expect(await events(id)).toEqual(['invoice.paid'])
  })

  it('when a transfer is mined just before expired_at and confirms after it, then the invoice waits and is paid', async () => {
    const { id, deposit } = await invoice('2.00', 300)
    const expiresAt = new Date((await detail(id)).expired_at).getTime()
    await chain.test.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(expiresAt / 1000) - 1) })
    await chain.transfer(deposit, 2n * USDC)
    t.clock.set(new Date(expiresAt + 60_000))
    // the clock's expiry runs before the detector read that block: the chain was not read past expired_at yet, so
    // the invoice waits for it
    expect(await t.rt.useCases.sweeps.expireDue(200)).toBe(0)
    await t.sweep() // the transfer is seen (1 confirmation): mined before expired_at, it keeps the invoice pending
    let d = await detail(id)
    expect(d.status).toBe('pending')
    expect((await client.getInfo({ merchant_id: m.id, invoice_id: id })).body).toMatchObject({ status: 'pending' })
    await chain.mine(CONFIRMATIONS - 1)
    await t.sweep()
    d = await detail(id)
    expect(d.status).toBe('paid')
    expect(await events(id)).toEqual(['invoice.paid'])
  })

  it('when the payment arrives after expiry, then the invoice stays expired and the merchant gets invoice.late_payment', async () => {
    const { id, deposit } = await invoice('3.00', 300)
    await passTime(301)
    await t.sweep()
    expect((await detail(id)).status).toBe('expired')
    await chain.transfer(deposit, 3n * USDC)
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    expect((await detail(id)).status).toBe('expired')
    expect(await events(id)).toEqual(['invoice.expired', 'invoice.late_payment'])
    await chain.mine(1)
    await t.sweep()
    expect(await events(id)).toEqual(['invoice.expired', 'invoice.late_payment']) // reported once
  })

  it('when a reorg drops a transfer before it is final, then it is as if never seen; included again, paid once', async () => {
    const { id, deposit } = await invoice('4.00')
    const hash = await chain.transfer(deposit, 4n * USDC)
    await t.sweep()
    expect((await detail(id)).payment?.tx_hash).toBe(hash)
    // the block with the transfer is replaced by an empty one
    await chain.test.request({ method: 'anvil_rollback' as never, params: [1] as never })
    await chain.test.request({ method: 'anvil_dropAllTransactions' as never, params: [] as never })
    await chain.mine(1)
    await t.sweep()
    let d = await detail(id)
    expect(d.status).toBe('pending')
    expect(d.payment).toMatchObject({ received: '0', tx_hash: null })
    // the buyer sends it again
    await chain.transfer(deposit, 4n * USDC)
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    d = await detail(id)
    expect(d.status).toBe('paid')
    expect(await events(id)).toEqual(['invoice.paid'])
  })

  it('when the RPC endpoint is down and comes back, then the payment is detected', async () => {
    const { id, deposit } = await invoice('6.00')
    await chain.transfer(deposit, 6n * USDC)
    await chain.mine(CONFIRMATIONS)
    chain.pause()
    try {
      await t.sweep() // the round fails (timeout), logged and retried; nothing changes
      expect((await detail(id)).status).toBe('pending')
    } finally {
      chain.resume()
    }
    await t.sweep()
    expect((await detail(id)).status).toBe('paid')
  })
})

describe('the forwarder', () => {
  it('when anyone sweeps it, then the tokens go to the payout address and nowhere else', async () => {
    const { deposit } = await invoice('1.00')
    await chain.transfer(deposit, USDC)
    await chain.mine(CONFIRMATIONS)
    await t.sweep() // paid and swept: the forwarder is deployed
    expect(await chain.client.getCode({ address: deposit })).toMatch(/^0x.+/)
    // more tokens arrive; a stranger sweeps: they still go to the payout address
    await chain.transfer(deposit, 2n * USDC)
    const payoutBefore = await chain.balanceOf(PAYOUT)
    const strangerBefore = await chain.balanceOf(chain.accounts.stranger.address)
    const wallet = await import('viem').then(({ createWalletClient, http }) =>
      createWalletClient({ account: chain.accounts.stranger, chain: chain.chain, transport: http(chain.url) }),
    )
    const forwarderAbi = artifact('Forwarder').abi
    const hash = await wallet.writeContract({
      address: deposit,
      abi: forwarderAbi,
      functionName: 'sweep',
      args: [chain.token],
    })
    await chain.client.waitForTransactionReceipt({ hash })
    expect(await chain.balanceOf(PAYOUT)).toBe(payoutBefore + 2n * USDC)
    expect(await chain.balanceOf(chain.accounts.stranger.address)).toBe(strangerBefore)
    // it has no other way out: a transfer call on it reverts
    await chain.transfer(deposit, USDC)
    const call = encodeFunctionData({
      abi: parseAbi(['function transfer(address to, uint256 amount) returns (bool)']),
      args: [chain.accounts.stranger.address, USDC],
    })
    await expect(chain.client.call({ account: chain.accounts.stranger, to: deposit, data: call })).rejects.toThrow()
    expect(await chain.balanceOf(deposit)).toBe(USDC)
  })
})

describe('the payment page of a stablecoin invoice', () => {
  it('when pending, then it shows the network, token, address and exact amount; a payment seen shows its confirmations live', async () => {
    const { id, deposit } = await invoice('2.50')
    const page = async () => (await t.app.inject({ url: `/pay/${id}?lang=en` })).body
    const status = async () =>
      (await t.app.inject({ url: `/pay/${id}/status` })).json<{ status: string; progress?: string }>()
    let html = await page()
    expect(html).toContain('Local test chain (31337)')
    expect(html).toContain(getAddress(chain.token))
    expect(html).toContain(`value="${deposit.toLowerCase()}"`)
    expect(html).toContain('data-exact-amount>2.5<')
    expect(html).not.toContain('data-confirmations')
    const before = await status()
    await chain.transfer(deposit, 2_500_000n)
    await t.sweep()
    const after = await status()
    // the page's script reloads the view when this changes while the invoice stays pending
    expect(after.status).toBe('pending')
    expect(after.progress).not.toBe(before.progress)
    html = await page()
    expect(html).toContain(`Payment seen: 1 of ${CONFIRMATIONS} confirmations.`)
    await chain.mine(1)
    await t.sweep()
    expect(await page()).toContain(`Payment seen: 2 of ${CONFIRMATIONS} confirmations.`)
  })
})

describe('a partial payment the invoice expires with', () => {
  it('when an underpaid invoice expires, then it stays expired and what it received is reported with invoice.late_payment', async () => {
    const { id, deposit } = await invoice('8.00', 300)
    await chain.transfer(deposit, 3n * USDC)
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    expect((await detail(id)).payment?.received).toBe('3')
    await passTime(301)
    await t.sweep()
    await t.sweep()
    expect((await detail(id)).status).toBe('expired')
    expect(await events(id)).toEqual(['invoice.expired', 'invoice.late_payment'])
  })
})

describe('the sweeper', () => {
  it('when a sweep fails (the relayer has no gas), then it is kept, counted on /metrics, and retried later', async () => {
    const metric = async (name: string): Promise<number> => {
      const text = (await t.app.inject({ url: '/metrics' })).body
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN')
    }
    const relayer = chain.accounts.relayer.address
    const gas = await chain.client.getBalance({ address: relayer })
    const { id, deposit } = await invoice('1.00')
    await chain.test.setBalance({ address: relayer, value: 0n })
    try {
      await chain.transfer(deposit, USDC)
      await chain.mine(CONFIRMATIONS)
      await t.sweep()
      expect((await detail(id)).status).toBe('paid')
      const sweep = await t.rt.store.evm.findSweep(id as never)
      expect(sweep).toMatchObject({ state: 'due', attempts: 1 })
      expect(sweep?.lastError).toBeTruthy()
      expect(await metric('evm_sweeps_failing')).toBe(1)
      expect(await metric('evm_sweep_failures_total')).toBeGreaterThanOrEqual(1)
    } finally {
      await chain.test.setBalance({ address: relayer, value: gas })
    }
    t.clock.advance(3600)
    await t.sweep()
    expect((await t.rt.store.evm.findSweep(id as never))?.state).toBe('done')
    expect(await chain.balanceOf(deposit)).toBe(0n)
    await new Promise((resolve) => setTimeout(resolve, 300)) // past the scrape's cached read (250 ms)
    expect(await metric('evm_sweeps_failing')).toBe(0)
  })
})

describe('the dashboard daily totals (docs/dashboard.md#daily-totals)', () => {
  it('when every case above has run, then the totals equal a recount from the invoices', async () => {
    await expectTotalsMatch(t, m.id)
  })
})
