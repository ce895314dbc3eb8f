/**
 * The overview page in Chromium (docs/dashboard.md#overview): a month of a merchant's invoices in two currencies,
 * in English (desktop) and Russian; axe finds no serious or critical violation; the period links are reached and
 * followed by keyboard alone; no CSP violation or script error. Screenshots dashboard-overview-en.png and
 * dashboard-overview-ru.png (written to docs/ with UPDATE_SCREENSHOTS=1).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectStatus } from '../helpers/api.js'
import { browserSkipReason } from '../helpers/browser.js'
import type { TestApp } from '../helpers/build-test-app.js'
import { signedIn } from '../helpers/dashboard.js'
import { openDashboardBrowser, type DashboardBrowser, DESKTOP } from '../helpers/dashboard-browser.js'

const TODAY = new Date('2026-11-22T15:00:00.000Z')
const DAY_MS = 86_400_000

describe.skipIf(browserSkipReason !== undefined)('overview in a real browser (docs/dashboard.md#overview)', () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let d: DashboardBrowser

  beforeAll(async () => {
    d = await openDashboardBrowser()
    ;({ t, browser, origin } = d)
  })
  afterAll(async () => {
    await d?.close()
  })

  /** A month of invoices: a few a day, most paid, some held, failed or left to expire, and two refunds. */
  async function seedMonth(merchant: { apiKey: string }): Promise<void> {
    const shop = api(t).as(merchant)
    for (let d = 29; d >= 0; d -= 1) {
      t.clock.set(new Date(TODAY.getTime() - d * DAY_MS - 5 * 3_600_000))
      const n = 2 + ((d * 7) % 5)
      for (let i = 0; i < n; i += 1) {
        const usd = (d + i) % 4 === 0
        const amount = usd ? `${20 + ((d * 13 + i * 7) % 60)}.00` : `${800 + ((d * 137 + i * 291) % 4200)}.00`
        const id = await shop.newInvoice({ amount, currency: usd ? 'USD' : 'RUB' })
        const roll = (d * 5 + i * 3) % 10
        if (roll < 6) expectStatus(await api(t).simulate(id, { outcome: 'paid' }), 200)
        else if (roll === 6) expectStatus(await api(t).simulate(id, { outcome: 'hold' }), 200)
        else if (roll === 7) expectStatus(await api(t).simulate(id, { outcome: 'failed' }), 200)
        if (roll === 0 && d % 9 === 0)
          expectStatus(await shop.createRefund(id, { amount: usd ? '5.00' : '300.00' }, `r-${d}-${i}`), 201)
      }
    }
    t.clock.set(TODAY)
  }

  const axe = (context: BrowserContext, url: string) => d.axe(context, url)

  const shot = (page: Page, name: string) => d.shot(page, name)
  const activeHref = (page: Page) =>
    page.evaluate(
      () =>
        (
          globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }
        ).document.activeElement.getAttribute('href') ?? '',
    )

  it('when an owner opens the overview in English and Russian, then it is axe clean and the period links work by keyboard', async () => {
    const m = await t.merchant('Blue Mug Coffee Roasters')
    await seedMonth(m)
    const owner = await signedIn(t, { merchantId: m.id, email: 'owner@bluemug.example' })
    const context = await browser.newContext({ ...DESKTOP, locale: 'en-US' })
    await owner.into(context, origin)
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text())
    })
    page.on('pageerror', (err) => errors.push(err.message))

    await page.goto(`${origin}/dashboard`)
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'Paid per day, RUB' }).waitFor({ state: 'attached' })
    expect(await page.locator('figure.chart svg rect.bar').count()).toBeGreaterThan(20)
    await axe(context, `${origin}/dashboard`)
    await shot(page, 'dashboard-overview-en')

    // keyboard only: Tab reaches "Last 7 days", Enter follows it
    await page.locator('body').focus()
    let tabs = 0
    while (!(await activeHref(page)).includes('days=7') && tabs < 30) {
      await page.keyboard.press('Tab')
      tabs += 1
    }
    expect(await activeHref(page)).toContain('days=7')
    await page.keyboard.press('Enter')
    await page.waitForURL(/days=7/)
    expect(await page.getByRole('link', { name: 'Last 7 days' }).getAttribute('aria-current')).toBe('page')
    await page.keyboard.press('Tab') // from the top again: the links stay reachable
    await page.getByRole('link', { name: 'Last 90 days' }).focus()
    await page.keyboard.press('Enter')
    await page.waitForURL(/days=90/)

    await page.goto(`${origin}/dashboard?lang=ru`)
    await page.getByRole('heading', { name: 'Обзор', level: 1 }).waitFor()
    await axe(context, `${origin}/dashboard?lang=ru`)
    await shot(page, 'dashboard-overview-ru')
    expect(errors).toEqual([])
    await context.close()
  }, 90_000) // seeding a month through the API takes a while on a loaded 2-core machine
})
