/**
 * The operator console in a real browser (docs/dashboard.md#operator-console): an operator signs in → the console →
 * merchants → a merchant → creates a merchant → disables and enables it → looks up an invoice → its page → health.
 * No CSP violation or script error; axe finds no serious or critical violation on any page; screenshots written to
 * docs/ with UPDATE_SCREENSHOTS=1.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../helpers/api.js'
import { failDueDeliveries } from '../helpers/deliveries.js'
import { browserSkipReason } from '../helpers/browser.js'
import type { TestApp } from '../helpers/build-test-app.js'
import { TEST_PASSWORD } from '../helpers/dashboard.js'
import { openDashboardBrowser, type DashboardBrowser, DESKTOP } from '../helpers/dashboard-browser.js'

const EMAIL = 'ops@payments.example'

describe.skipIf(browserSkipReason !== undefined)('the operator console in a real browser', () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let paidId: string
  let d: DashboardBrowser

  beforeAll(async () => {
    d = await openDashboardBrowser({
      SERVICE_FEES: 'card=2.5%,sbp=0.4%+1.00',
      SERVICES: 'card,sbp:RUB',
      CALLBACK_ALLOW_HTTP: 'true',
    })
    ;({ t, browser, origin } = d)

    // a small installation: two merchants, a paid invoice whose webhook keeps failing, acquirer notifications
    const mug = await t.merchant('Blue Mug Coffee Roasters')
    const socks = await t.merchant('Nordic Socks', 'sbp')
    await t.rt.useCases.users.invite({ merchantId: mug.id, email: 'owner@bluemug.example' })
    await t.rt.useCases.users.invite({ merchantId: mug.id, email: 'books@bluemug.example', role: 'viewer' })
    paidId = await api(t).as(mug).newInvoice({
      order_id: 'ORDER-1042',
      amount: '1250.00',
      currency: 'RUB',
      callback_url: 'http://shop.bluemug.example/hooks/payments',
    })
    await api(t).simulate(paidId, { outcome: 'paid' })
    await api(t).as(mug).newInvoice({ order_id: 'ORDER-1043', amount: '390.00', currency: 'RUB' })
    await api(t).as(socks).newInvoice({ order_id: 'ORDER-1042', amount: '15.00', currency: 'RUB' })
    t.clock.advance(600)
    await failDueDeliveries(t, { statusCode: 502, retryInMs: 0 })
    t.clock.advance(300)
    for (const result of ['accepted', 'accepted', 'accepted', 'refused', 'unknown'] as const)
      t.rt.providerMetrics.notification('stripe', result)
    t.rt.providerMetrics.notification('yookassa', 'refused')
  })
  afterAll(async () => {
    await d?.close()
  })

  const axe = (context: BrowserContext, url: string) => d.axe(context, url)

  const shot = (page: Page, name: string) => d.shot(page, name)

  it('when an operator signs in, then each console page works and a merchant is created, disabled, enabled and an invoice found', async () => {
    const link = await t.rt.useCases.users.invite({ admin: true, email: EMAIL })
    const context = await browser.newContext({ ...DESKTOP, locale: 'en-US' })
    const page = await context.newPage()
    page.setDefaultTimeout(10_000)
    const errors: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text())
    })
    page.on('pageerror', (err) => errors.push(err.message))

    await page.goto(link.url)
    await page.getByLabel('New password (at least 12 characters)').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Operator console', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/dashboard/console')
    await axe(context, page.url())
    await shot(page, 'dashboard-console-en')

    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Merchants' }).click()
    await page.getByRole('heading', { name: 'Merchants', level: 1 }).waitFor()
    await axe(context, page.url())

    // create a merchant: its key is shown once
    await page.getByLabel('Name').fill('Harbour Books')
    await page.getByLabel('Default service').selectOption('card')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByText('Merchant created.').waitFor()
    const key = await page.locator('dt:has-text("API key") + dd code').textContent()
    expect(key).toMatch(/^mk_/)
    expect(
      (await api(t).as({ apiKey: key! }).createInvoice({ order_id: 'HB-1', amount: '9.99', currency: 'RUB' })).status,
    ).toBe(201)

    // disable it from the list, then enable it again
    const row = page.getByRole('row', { name: /Harbour Books/ })
    await row.getByRole('button', { name: 'Disable Harbour Books' }).click()
    await page.getByText('Merchant disabled').waitFor()
    await expect.poll(() => page.getByRole('row', { name: /Harbour Books/ }).textContent()).toContain('disabled')
    expect(
      (await api(t).as({ apiKey: key! }).createInvoice({ order_id: 'HB-2', amount: '9.99', currency: 'RUB' })).status,
    ).toBe(403)
    await page
      .getByRole('row', { name: /Harbour Books/ })
      .getByRole('button', { name: 'Enable Harbour Books' })
      .click()
    await page.getByText('Merchant enabled.').waitFor()
    await shot(page, 'dashboard-console-merchants-en')

    // a merchant's page
    await page.getByRole('link', { name: 'Blue Mug Coffee Roasters' }).click()
    await page.getByRole('heading', { name: 'Blue Mug Coffee Roasters', level: 1 }).waitFor()
    await page.getByText('books@bluemug.example').waitFor()
    await axe(context, page.url())
    await shot(page, 'dashboard-console-merchant-en')

    // look up an order_id held by two merchants, then open one invoice
    await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link', { name: 'Invoice lookup' })
      .click()
    await page.getByRole('searchbox', { name: 'Search' }).fill('ORDER-1042')
    await page.getByRole('button', { name: 'Find' }).click()
    await page.getByText('2 invoices found.').waitFor()
    await axe(context, page.url())
    await shot(page, 'dashboard-console-lookup-en')
    await page
      .getByRole('row', { name: /Blue Mug/ })
      .getByRole('link', { name: 'ORDER-1042' })
      .click()
    await page.getByRole('heading', { name: 'Invoice ORDER-1042', level: 1 }).waitFor()
    await page.getByText('invoice.paid').first().waitFor()
    expect(new URL(page.url()).pathname).toBe(`/dashboard/console/invoices/${paidId}`)
    await axe(context, page.url())
    await shot(page, 'dashboard-console-invoice-en')

    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Health' }).click()
    await page.getByRole('heading', { name: 'Health', level: 1 }).waitFor()
    await page.getByText('http://shop.bluemug.example/hooks/payments').waitFor()
    await axe(context, page.url())
    await shot(page, 'dashboard-console-health-en')

    // Russian
    await page.getByRole('link', { name: 'Русский' }).click()
    await page.getByRole('heading', { name: 'Состояние', level: 1 }).waitFor()
    await axe(context, page.url())
    expect(errors).toEqual([])
    await context.close()
  }, 120_000)
})
