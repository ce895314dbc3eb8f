import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from '../helpers/anvil.js'

describe('the anvil harness', () => {
  let chain: Anvil
  beforeAll(async () => {
    chain = await startAnvil()
  })
  afterAll(async () => {
    await chain?.stop()
  })

  it('when the buyer is minted tokens and sends some, then balances move on the chain', async () => {
    await chain.mint(chain.accounts.buyer.address, 5_000_000n)
    const before = await chain.blockNumber()
    await chain.transfer(chain.accounts.stranger.address, 1_250_000n)
    await chain.mine(3)
    expect(await chain.balanceOf(chain.accounts.stranger.address)).toBe(1_250_000n)
    expect(await chain.balanceOf(chain.accounts.buyer.address)).toBe(3_750_000n)
    expect(await chain.blockNumber()).toBe(before + 4n)
  })
})
