/**
 * The buyer's card payment in a real browser (docs/providers.md#checkout): our payment page's Pay button, the fake
 * acquirer's hosted checkout (test/fakes/), and back to our page, which shows the outcome; the merchant gets the
 * webhook. One describe per acquirer, configured as the provider conformance suite configures it (drivers.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InvoiceId } from '../../src/domain/ids.js'
import type { FakeAcquirer } from '../fakes/acquirer.js'
import { browserSkipReason, launchBrowser, seriousViolations } from '../helpers/browser.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { freePort } from '../helpers/live-service.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { stripeDriver, yookassaDriver, type ProviderDriver } from '../providers/drivers.js'

// A phone, as the payment page's own browser test uses: the page is designed mobile-first.
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, timezoneId: 'UTC' }
/** Where the screenshots go (a fresh temporary directory unless set): they are for looking at, never committed. */
const SHOTS_DIR = process.env['CARD_PAYMENT_SHOTS']

describeCardPayment('Stripe', stripeDriver, { declineStaysAtAcquirer: true })
describeCardPayment('YooKassa', yookassaDriver, { declineStaysAtAcquirer: false })

function describeCardPayment(
  name: string,
  makeDriver: () => Promise<ProviderDriver>,
  acquirer: {
    /** Stripe: a declined card stays on its checkout, which says so; YooKassa cancels and sends the buyer back. */
    readonly declineStaysAtAcquirer: boolean
  },
): void {
  describe.skipIf(browserSkipReason !== undefined)(`the buyer pays by card in Chromium: ${name}`, () => {
    let driver: ProviderDriver
    let fake: FakeAcquirer
    let t: TestApp
    let merchant: TestMerchant
    let receiver: Receiver
    let browser: Browser
    let orders = 0

    beforeAll(async () => {
      driver = await makeDriver()
      if (driver.acquirer === undefined) throw new Error(`${name} has no acquirer`)
      fake = driver.acquirer
      receiver = await startReceiver()
      const port = await freePort()
      const url = `http://127.0.0.1:${port}`
      t = await buildTestApp(
        {
          PUBLIC_URL: url,
          CALLBACK_ALLOW_HTTP: 'true',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_RETRY_SCHEDULE: '0,1',
          CURRENCIES: 'RUB,USD,EUR',
          ...driver.env,
        },
        { realClock: true, webhooks: true },
      )
      await t.app.listen({ port, host: '127.0.0.1' })
      merchant = await t.merchant('Blue Mug Coffee Roasters')
      // the merchant's endpoint verifies the signature, as a shop would
      receiver.secrets = [merchant.webhookSecret]
      fake.setNotificationUrl(`${url}/providers/${driver.name}/notifications`)
      browser = await launchBrowser()
    })
    afterAll(async () => {
      await browser?.close()
      await t?.close()
      await receiver?.close()
      await driver?.close()
    })

    const create = async (): Promise<{ id: string; payUrl: string }> => {
      const res = await fetch(`${t.config.publicUrl}/api/v1/invoices`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': merchant.apiKey },
        body: JSON.stringify({
          order_id: `${driver.name}-browser-${(orders += 1)}`,
          amount: '10.50',
          currency: driver.currency,
          service: 'card',
          comment: 'Ethiopia Yirgacheffe, 1 kg, whole beans',
          callback_url: receiver.url,
        }),
      })
      const body = (await res.json()) as { order_id: string; pay_url: string }
      expect(res.status, JSON.stringify(body)).toBe(201)
      return { id: body.order_id, payUrl: body.pay_url }
    }
    const statusOf = async (id: string): Promise<string> => {
      const res = await fetch(`${t.config.publicUrl}/api/v1/invoices/${id}`, {
        headers: { 'x-api-key': merchant.apiKey },
      })
      return ((await res.json()) as { status: string }).status
    }
    const checkoutIds = async (id: string) =>
      (await t.rt.store.attempts.listByInvoice(id as InvoiceId)).map((a) => a.checkoutId)
    const webhooksOf = async (id: string, n: number) =>
      (await receiver.waitFor(n, { where: (h) => h.json.data['id'] === id, timeoutMs: 10_000 })).map((h) => h.json.type)

    /**
     * A page in a fresh context. Script errors and CSP refusals (console errors) on our own pages are collected: there
     * must be none. The fake acquirers' bare pages (no favicon) are not ours to judge.
     */
    const open = async (
      url: string,
      options: BrowserContextOptions = {},
    ): Promise<{ page: Page; errors: string[] }> => {
      const context = await browser.newContext({ ...PHONE, locale: 'en-US', ...options })
      const page = await context.newPage()
      const errors: string[] = []
      const ours = () => page.url().startsWith(t.config.publicUrl)
      page.on('console', (msg) => {
        if (msg.type() === 'error' && ours()) errors.push(`${page.url()}: ${msg.text()}`)
      })
      page.on('pageerror', (err) => {
        if (ours()) errors.push(`${page.url()}: ${err.message}`)
      })
      await page.goto(url)
      return { page, errors }
    }
    const payButton = (page: Page) => page.getByRole('button', { name: /^Pay .*10\.50/ })
    const atAcquirer = (page: Page) => page.waitForURL((u) => u.origin === new URL(fake.apiUrl).origin)
    const backOnOurPage = (page: Page, payUrl: string) => page.waitForURL((u) => u.href.startsWith(payUrl))
    /** At the acquirer's hosted checkout: its own Pay or Decline button. */
    const acquirerButton = (page: Page, action: 'Pay' | 'Decline') =>
      page.getByRole('button', { name: action, exact: true })

    /** Tab, as a person would, until the Pay button has the focus; whether it got there within 20 presses. */
    const tabToPay = async (page: Page): Promise<boolean> => {
      const focusedIsPay = () =>
        page.evaluate(() => {
          const el = (globalThis as unknown as { document: { activeElement: { closest(s: string): unknown } | null } })
            .document.activeElement
          return el !== null && el.closest('[data-checkout] button') !== null
        })
      for (let tabs = 0; tabs < 20 && !(await focusedIsPay()); tabs += 1) await page.keyboard.press('Tab')
      return focusedIsPay()
    }

    it('when the buyer clicks Pay and pays at the acquirer, then our page shows paid and the merchant gets invoice.paid', async () => {
      const { id, payUrl } = await create()
      const { page, errors } = await open(payUrl)
      await page.getByRole('heading', { name: 'Awaiting payment' }).waitFor()
      // the invoice is the acquirer's: a Pay button, and no sandbox test controls or TEST MODE banner
      expect(await payButton(page).count()).toBe(1)
      expect(await page.getByText('TEST MODE').count()).toBe(0)
      expect(await page.locator('.banner, [data-simulate]').count()).toBe(0)

      await payButton(page).click()
      await atAcquirer(page)
      await acquirerButton(page, 'Pay').click()
      await backOnOurPage(page, payUrl)
      // as a person would: the status heading says so
      await page.getByRole('heading', { name: 'Payment received' }).waitFor()
      expect(await page.title()).toMatch(/^Payment received/)
      expect(await payButton(page).count()).toBe(0)

      expect(await statusOf(id)).toBe('paid')
      expect(await webhooksOf(id, 1)).toEqual(['invoice.paid'])
      expect(errors).toEqual([])
      await page.context().close()
    })

    it('when the card is declined at the acquirer, then our page still awaits payment and Pay works again', async () => {
      const { id, payUrl } = await create()
      const { page, errors } = await open(payUrl)
      await payButton(page).click()
      await atAcquirer(page)
      await acquirerButton(page, 'Decline').click()
      if (acquirer.declineStaysAtAcquirer) {
        // Stripe keeps its checkout open and says why; the buyer goes back to the shop's page
        await page.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor()
        expect(new URL(page.url()).origin).toBe(new URL(fake.apiUrl).origin)
        await page.getByRole('link', { name: 'Back' }).click()
      }
      await backOnOurPage(page, payUrl)
      await page.getByRole('heading', { name: 'Awaiting payment' }).waitFor()
      expect(await statusOf(id)).toBe('pending')

      await payButton(page).click()
      await atAcquirer(page)
      const attempts = await checkoutIds(id)
      // Stripe: the same open checkout, tried again there; YooKassa cancelled its payment: a second one
      expect(attempts).toHaveLength(acquirer.declineStaysAtAcquirer ? 1 : 2)
      expect(new Set(attempts).size).toBe(attempts.length)
      await acquirerButton(page, 'Pay').click()
      await backOnOurPage(page, payUrl)
      await page.getByRole('heading', { name: 'Payment received' }).waitFor()
      expect(await statusOf(id)).toBe('paid')
      expect(await webhooksOf(id, 1)).toEqual(['invoice.paid'])
      expect(errors).toEqual([])
      await page.context().close()
    })

    it('when the buyer uses only the keyboard, then Tab reaches Pay and Enter goes to the acquirer', async () => {
      const { id, payUrl } = await create()
      const { page, errors } = await open(payUrl)
      await page.getByRole('heading', { name: 'Awaiting payment' }).waitFor()
      expect(await tabToPay(page)).toBe(true)
      // the focus is visible (the page's focus ring), not only there
      expect(
        await payButton(page).evaluate(
          (b) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { outlineStyle: string } }).getComputedStyle(b)
              .outlineStyle,
        ),
      ).toBe('solid')
      await page.keyboard.press('Enter')
      await atAcquirer(page)
      expect(await checkoutIds(id)).toHaveLength(1)
      // at the acquirer, Enter on its Pay; back on our page, paid
      await acquirerButton(page, 'Pay').focus()
      await page.keyboard.press('Enter')
      await backOnOurPage(page, payUrl)
      await page.getByRole('heading', { name: 'Payment received' }).waitFor()
      expect(errors).toEqual([])
      await page.context().close()
    })

    it('when axe-core checks our page with Pay (en, ru) and after payment, then nothing serious or critical is found', async () => {
      const { payUrl } = await create()
      // addScriptTag injects an inline script, which the page's own CSP rightly refuses: bypass it for axe only.
      for (const [view, url] of [
        ['pending en', payUrl],
        ['pending ru', `${payUrl}?lang=ru`],
      ] as const) {
        const { page } = await open(url, { bypassCSP: true })
        expect({ view, violations: await seriousViolations(page) }).toEqual({ view, violations: [] })
        await page.context().close()
      }
      const { page } = await open(payUrl, { bypassCSP: true })
      await payButton(page).click()
      await atAcquirer(page)
      await acquirerButton(page, 'Pay').click()
      await backOnOurPage(page, payUrl)
      await page.getByRole('heading', { name: 'Payment received' }).waitFor()
      expect({ view: 'paid', violations: await seriousViolations(page) }).toEqual({ view: 'paid', violations: [] })
      await page.context().close()
    })

    it('when a phone opens the page with Pay, then it renders full-page screenshots (en, ru)', async () => {
      const dir = SHOTS_DIR ?? mkdtempSync(join(tmpdir(), 'card-payment-shots-'))
      mkdirSync(dir, { recursive: true })
      const { payUrl } = await create()
      for (const lang of ['en', 'ru']) {
        const { page } = await open(`${payUrl}?lang=${lang}`)
        const qr = page.locator('img[data-qr]')
        await expect
          .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
          .toBeGreaterThan(0)
        const png = await page.screenshot({
          fullPage: true,
          animations: 'disabled',
          path: join(dir, `card-payment-${driver.name}-${lang}.png`),
        })
        const img = PNG.sync.read(png)
        expect(img.width).toBe(390)
        expect(img.height).toBeGreaterThan(600)
        // and the Pay button with the keyboard's focus ring
        expect(await tabToPay(page)).toBe(true)
        // the ring is drawn outside the button: the picture takes a margin around it
        const box = await page.locator('[data-checkout] button').boundingBox()
        if (box === null) throw new Error('the Pay button has no box')
        const clip = { x: box.x - 16, y: box.y - 16, width: box.width + 32, height: box.height + 32 }
        await page.screenshot({
          clip,
          animations: 'disabled',
          path: join(dir, `card-payment-${driver.name}-${lang}-focus.png`),
        })
        await page.context().close()
      }
    })
  })
}
