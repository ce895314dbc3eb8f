/**
 * The payment page of a stablecoin invoice in a real browser (docs/stablecoins.md, docs/payment-page.md): what the
 * buyer needs to pay from a wallet, readable and accessible, and the confirmations counting up live as the chain
 * confirms a real transfer on anvil, without the buyer reloading.
 */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import type { Browser, Page } from 'playwright-core'
import { getAddress, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, type TestClient } from '../helpers/api.js'
import { startAnvil, type Anvil } from '../helpers/anvil.js'
import { browserSkipReason, launchBrowser, seriousViolations } from '../helpers/browser.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { freePort } from '../helpers/live-service.js'
import { CONFIRMATIONS, deployFactoryByCli, evmEnv, setPayout, syncClock } from './evm-env.js'

const UPDATE_SCREENSHOTS = process.env['UPDATE_SCREENSHOTS'] === '1'
const USDC = 1_000_000n
const PAYOUT = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' as Address // anvil's account 4: no key used here

describe.skipIf(browserSkipReason !== undefined)('the payment page of a stablecoin invoice in Chromium', () => {
  let chain: Anvil
  let t: TestApp
  let client: TestClient
  let browser: Browser

  beforeAll(async () => {
    chain = await startAnvil()
    const factory = await deployFactoryByCli(chain)
    const port = await freePort()
    t = await buildTestApp({ ...evmEnv(chain, factory), PUBLIC_URL: `http://127.0.0.1:${port}` }, { db: 'sqlite' })
    await t.app.listen({ port, host: '127.0.0.1' })
    const m = await t.merchant('Coin Shop')
    client = api(t).as(m)
    expect(await setPayout(t, m.id, PAYOUT)).toBe(0)
    await chain.mint(chain.accounts.buyer.address, 100n * USDC)
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await chain?.stop()
  })

  const open = async (url: string): Promise<{ page: Page; errors: string[] }> => {
    // bypassCSP: axe is injected as an inline script, which the page's CSP refuses (the CSP has tests of its own)
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
      bypassCSP: true,
    })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text())
    })
    page.on('pageerror', (err) => errors.push(err.message))
    await page.goto(url)
    return { page, errors }
  }

  it('when the buyer opens it, pays from a wallet and the chain confirms, then the page shows what to send, then the confirmations live, then the payment received', async () => {
    await syncClock(t, chain)
    const id = await client.newInvoice({ amount: '2.50', currency: 'USD', service: 'usdc' })
    const detail = await client.getInvoice(id)
    expect(detail.status).toBe(200)
    const body = detail.body as unknown as { qr_data: string }
    const deposit = getAddress(/address=(0x[0-9a-fA-F]{40})/.exec(body.qr_data)?.[1] ?? '')
    const { page, errors } = await open(`${t.config.publicUrl}/pay/${id}?lang=en`)

    // what a wallet needs, as the buyer reads it
    await page.getByRole('heading', { name: 'Awaiting payment' }).waitFor()
    const deposits = page.locator('[data-deposit]')
    await deposits.getByRole('heading', { name: 'Pay with a stablecoin' }).waitFor()
    const text = await deposits.innerText()
    expect(text).toContain('Local test chain (31337)')
    expect(text).toContain(getAddress(chain.token))
    expect(text).toContain('2.5')
    const address = page.locator(`input[value="${deposit.toLowerCase()}"]`)
    expect(await address.count()).toBe(1)
    // the whole address is in view on a phone, for the buyer to compare with the wallet's
    expect(await address.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
    expect(await seriousViolations(page)).toEqual([])
    const dir = UPDATE_SCREENSHOTS ? 'docs' : mkdtempSync(join(tmpdir(), 'evm-shots-'))
    mkdirSync(dir, { recursive: true })
    const png = PNG.sync.read(await page.screenshot({ fullPage: true, path: join(dir, 'payment-page-evm-en.png') }))
    expect(png.width).toBe(390)

    // the transfer is mined: the page, polling, shows it seen with its confirmations, then counting up
    await chain.transfer(deposit, 2_500_000n)
    await t.sweep()
    await page.getByText(`Payment seen: 1 of ${CONFIRMATIONS} confirmations.`).waitFor({ timeout: 10_000 })
    await chain.mine(1)
    await t.sweep()
    await page.getByText(`Payment seen: 2 of ${CONFIRMATIONS} confirmations.`).waitFor({ timeout: 10_000 })
    expect(await seriousViolations(page)).toEqual([])

    // confirmed: paid
    await chain.mine(CONFIRMATIONS)
    await t.sweep()
    await page.getByRole('heading', { name: 'Payment received' }).waitFor({ timeout: 10_000 })
    expect(errors).toEqual([])
  })
})
