/**
 * The account pages in a real browser (docs/dashboard.md#webhooks, #api-keys, #team, #settings): an owner sends a
 * test event and rotates the secret, creates and revokes a key, invites a user and changes a role, saves the
 * settings. No CSP violation or script error on the way; axe finds no serious or critical violation on any page;
 * screenshots of each page (written to docs/ with UPDATE_SCREENSHOTS=1).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectStatus } from '../helpers/api.js'
import { browserSkipReason } from '../helpers/browser.js'
import type { TestApp } from '../helpers/build-test-app.js'
import { signedIn } from '../helpers/dashboard.js'
import { openDashboardBrowser, type DashboardBrowser, DESKTOP } from '../helpers/dashboard-browser.js'
import { sleep, startReceiver, type Receiver } from '../helpers/webhook-receiver.js'

describe.skipIf(browserSkipReason !== undefined)('account pages in a real browser (docs/dashboard.md#team)', () => {
  let t: TestApp
  let rx: Receiver
  let browser: Browser
  let origin: string
  let d: DashboardBrowser

  beforeAll(async () => {
    rx = await startReceiver()
    d = await openDashboardBrowser(
      { CALLBACK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0' },
      { realClock: true, webhooks: true },
    )
    ;({ t, browser, origin } = d)
  })
  afterAll(async () => {
    await d?.close()
    await rx?.close()
  })

  const axe = (context: BrowserContext, url: string) => d.axe(context, url)
  const shot = (page: Page, name: string) => d.shot(page, name)

  it('when an owner works through webhooks, keys, team and settings, then each action shows its result', async () => {
    const m = await t.merchant('Blue Mug Coffee Roasters')
    rx.secrets = [m.webhookSecret]
    rx.respond = (h) => (h.json.data['order_id'] === 'A-1002' ? 500 : 204)
    for (const order of ['A-1001', 'A-1002', 'A-1003']) {
      const id = await api(t).as(m).newInvoice({ order_id: order, amount: 1250, currency: 'RUB', callback_url: rx.url })
      expectStatus(await api(t).simulate(id, { outcome: 'paid' }), 200)
    }
    while (
      (await t.rt.store.deliveries.list({ merchantId: m.id as never, limit: 10 })).some((d) => d.status === 'pending')
    )
      await sleep(20)
    await t.rt.useCases.users.invite({ merchantId: m.id, email: 'viewer@bluemug.example', role: 'viewer' })
    const client = await signedIn(t, { merchantId: m.id, email: 'owner@bluemug.example' })
    const context = await browser.newContext({ ...DESKTOP, locale: 'en-US' })
    await client.into(context, origin)
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text())
    })
    page.on('pageerror', (err) => errors.push(err.message))

    // webhooks: the log (failure first), a test event, a rotation
    await page.goto(`${origin}/dashboard/webhooks`)
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor()
    expect(await page.locator('tbody tr').first().textContent()).toContain('failed')
    await axe(context, `${origin}/dashboard/webhooks`)
    await page.getByRole('button', { name: 'Send test event' }).click()
    await page.getByText('The endpoint answered: 204').waitFor()
    await page.getByRole('button', { name: 'Rotate the secret' }).click()
    await page.getByText('Your new webhook secret.', { exact: false }).waitFor()
    await page.getByText('The previous secret keeps signing until', { exact: false }).waitFor()
    await shot(page, 'dashboard-webhooks-en')

    // API keys: create (shown once), then revoke
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Name (for you to tell keys apart)').fill('Checkout server')
    await page.getByRole('button', { name: 'Create key' }).click()
    const key = (await page.locator('.secret code').textContent())!.trim()
    expect(key).toMatch(/^mk_/)
    await shot(page, 'dashboard-api-keys-en')
    await axe(context, `${origin}/dashboard/api-keys`)
    await page.getByRole('button', { name: /Revoke the key Checkout server/ }).click()
    await page.getByText('The key is revoked', { exact: false }).waitFor()

    // team: invite (the link shown), a role changed
    await page.getByRole('link', { name: 'Team' }).click()
    await page.getByLabel('Email', { exact: true }).fill('new@bluemug.example')
    await page.getByRole('button', { name: 'Invite' }).click()
    await page.getByText('link:    ', { exact: false }).waitFor()
    expect(await page.locator('pre').textContent()).toContain(`${origin}/dashboard/invite/`)
    await page.getByLabel('New role of viewer@bluemug.example').selectOption('owner')
    await page
      .getByRole('row', { name: /viewer@bluemug\.example/ })
      .getByRole('button', { name: 'Change role' })
      .click()
    await page.getByRole('heading', { name: 'Team' }).waitFor()
    expect(await page.getByRole('row', { name: /viewer@bluemug\.example/ }).textContent()).toContain('owner')
    await axe(context, `${origin}/dashboard/team`)
    await shot(page, 'dashboard-team-en')

    // settings: saved
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('Name shown on the payment page').fill('Blue Mug Roasters')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Settings saved.').waitFor()
    await axe(context, `${origin}/dashboard/settings`)
    await shot(page, 'dashboard-settings-en')

    expect(errors).toEqual([])
    await context.close()
  }, 120_000)
})
