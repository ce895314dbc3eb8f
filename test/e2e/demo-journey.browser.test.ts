/**
 * The buyer's whole journey through `npm run demo`, in a real browser: the demo (examples/demo-shop/demo.js) starts
 * the real service and the real shop on an SQLite file, exactly as `npm run demo` does, and Chromium shops.
 * shop → "Buy now" → the service's payment page → sandbox "Pay" → "Return to the shop" (success_url) → the order
 * page says paid, because the service's webhook reached the shop and verified.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createInvoiceClient, type InvoiceClient } from '@invoice-service/client'
import { browserSkipReason, launchBrowser } from '../helpers/browser.js'
import { freePort } from '../helpers/live-service.js'

const ROOT = join(import.meta.dirname, '..', '..')

describe.skipIf(browserSkipReason !== undefined)(
  'the demo shop and the service, in a real browser (npm run demo)',
  () => {
    let dir: string
    let demo: ChildProcessWithoutNullStreams
    let exited: Promise<number | null>
    let output = ''
    let shopUrl: string
    let serviceUrl: string
    let browser: Browser
    let service: InvoiceClient

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'invoice-demo-'))
      const [servicePort, shopPort] = [await freePort(), await freePort()]
      demo = spawn(process.execPath, [join(ROOT, 'examples', 'demo-shop', 'demo.js')], {
        cwd: ROOT,
        env: {
          PATH: process.env['PATH'] ?? '',
          DEMO_SERVICE_PORT: String(servicePort),
          DEMO_SHOP_PORT: String(shopPort),
          DEMO_DATA_DIR: dir,
        },
      })
      demo.stdout.on('data', (d: Buffer) => (output += d.toString()))
      demo.stderr.on('data', (d: Buffer) => (output += d.toString()))
      exited = new Promise((resolve) => demo.on('exit', (code) => resolve(code)))
      const deadline = Date.now() + 40_000
      while (!/Demo shop: +http/.test(output) && demo.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
      shopUrl = /Demo shop: +(http\S+)/.exec(output)?.[1] ?? ''
      serviceUrl = /Invoice service: +(http\S+)/.exec(output)?.[1] ?? ''
      expect(shopUrl, output).toBe(`http://127.0.0.1:${shopPort}`)
      expect(serviceUrl).toBe(`http://127.0.0.1:${servicePort}`)
      // the merchant the demo created, to look at the service's side of the story
      const merchant = JSON.parse(readFileSync(join(dir, 'merchant.json'), 'utf8')) as {
        merchant_id: string
        api_key: string
      }
      service = createInvoiceClient({ baseUrl: serviceUrl, apiKey: merchant.api_key, merchantId: merchant.merchant_id })
      browser = await launchBrowser()
    }, 60_000)

    afterAll(async () => {
      await browser?.close()
      if (demo !== undefined && demo.exitCode === null) {
        demo.kill('SIGTERM')
        // Ctrl-C / SIGTERM stops the shop and the service cleanly
        expect(await exited).toBe(0)
      }
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    })

    /** Buys the mug and lands on the service's payment page; returns the page and the console errors seen. */
    async function buy(): Promise<{ page: Page; errors: string[] }> {
      const context = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 } })
      const page = await context.newPage()
      const errors: string[] = []
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text())
      })
      page.on('pageerror', (err) => errors.push(err.message))
      await page.goto(shopUrl)
      await page.getByRole('heading', { name: 'Blue enamel mug' }).waitFor()
      await page.getByRole('button', { name: 'Buy now' }).click()
      await page.waitForURL(`${serviceUrl}/pay/**`)
      await page.getByRole('heading', { name: 'Awaiting payment' }).waitFor()
      return { page, errors }
    }

    /** From the final payment page back to the shop's order page; its order id. */
    async function returnToShop(page: Page): Promise<string> {
      await page.getByRole('link', { name: 'Return to the shop' }).click()
      await page.waitForURL(`${shopUrl}/orders/**`)
      return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '')
    }

    it('when the buyer pays on the payment page and returns, then the order page shows paid, confirmed by a verified webhook', async () => {
      const { page, errors } = await buy()
      const invoiceId = new URL(page.url()).pathname.split('/').pop() ?? ''
      await page.getByRole('button', { name: 'Pay', exact: true }).click()
      await page.getByRole('heading', { name: 'Payment received' }).waitFor()

      const orderId = await returnToShop(page)
      expect(orderId).toMatch(/^DEMO-/)
      await expect.poll(() => page.locator('[data-status]').getAttribute('data-status')).toBe('paid')
      expect(await page.locator('[data-confirmed-by]').getAttribute('data-confirmed-by')).toBe('webhook')
      expect(await page.getByText('Confirmed by a verified webhook').textContent()).toMatch(
        /invoice\.paid, webhook-id [0-9a-f-]{36}/,
      )

      // The service's side: the invoice of this order is paid and its webhook was accepted by the shop (a 2xx,
      // which the shop answers only after verifyWebhook passed; a bad signature gets 401).
      const invoice = await service.getInvoice({ order_id: orderId })
      expect(invoice).toMatchObject({ id: invoiceId, status: 'paid', amount: 1490, currency: 'RUB' })
      const { data } = await service.listDeliveries({ invoice_id: invoiceId })
      expect(data).toEqual([
        expect.objectContaining({ type: 'invoice.paid', status: 'succeeded', url: `${shopUrl}/webhooks/invoices` }),
      ])
      expect(data[0]?.attempts.map((a) => a.status_code)).toEqual([204])
      expect(errors).toEqual([])
      await page.context().close()
    })

    it('when the buyer’s payment is only held, then the shop captures it on the hold webhook and the order ends paid', async () => {
      const { page, errors } = await buy()
      await page.getByRole('button', { name: 'Hold' }).click()
      // the shop's capture moves the invoice on; the payment page follows by itself
      await page.getByRole('heading', { name: 'Payment received' }).waitFor({ timeout: 15_000 })
      await returnToShop(page)
      await expect.poll(() => page.locator('[data-status]').getAttribute('data-status')).toBe('paid')
      expect(await page.locator('[data-confirmed-by]').getAttribute('data-confirmed-by')).toBe('webhook')
      expect(errors).toEqual([])
      expect(output).toMatch(/hold \(by webhook\)[\s\S]*paid \(by webhook\)/)
      await page.context().close()
    })
  },
)
