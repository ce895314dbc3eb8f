/**
 * The dashboard in a real browser (docs/dashboard.md#pages): invitation → set password → sign in → enrol
 * two-factor → sign out → keyboard-only sign-in with a TOTP code → the overview. No CSP violation or script error on
 * the way; axe finds no serious or critical violation on any page; screenshots of each page (written to docs/ with
 * UPDATE_SCREENSHOTS=1).
 */
import { createHmac } from 'node:crypto'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createScryptHasher } from '../../src/adapters/system/password-hasher.js'
import { base32Decode, totp } from '../../src/domain/totp.js'
import { browserSkipReason } from '../helpers/browser.js'
import type { TestApp } from '../helpers/build-test-app.js'
import { openDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js'

const WINDOW: BrowserContextOptions = {
  viewport: { width: 900, height: 700 },
  deviceScaleFactor: 1,
  timezoneId: 'UTC',
}
const EMAIL = 'owner@bluemug.example'
const PASSWORD = 'a long and memorable passphrase'

describe.skipIf(browserSkipReason !== undefined)('dashboard in a real browser (docs/dashboard.md#pages)', () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let d: DashboardBrowser

  beforeAll(async () => {
    d = await openDashboardBrowser({}, { passwords: createScryptHasher({ log2N: 12, r: 8, p: 1 }) }, WINDOW)
    ;({ t, browser, origin } = d)
  })
  afterAll(async () => {
    await d?.close()
  })

  const axe = (context: BrowserContext, url: string) => d.axe(context, url)

  const shot = (page: Page, name: string) => d.shot(page, name)

  it('when an invited owner sets a password, enrols two-factor, signs out and signs in by keyboard with a code, then each page works', async () => {
    const m = await t.merchant('Blue Mug Coffee Roasters')
    const link = await t.rt.useCases.users.invite({ merchantId: m.id, email: EMAIL })
    const context = await browser.newContext({ ...WINDOW, locale: 'en-US' })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text())
    })
    page.on('pageerror', (err) => errors.push(err.message))

    await page.goto(link.url)
    await page.getByRole('heading', { name: 'Set password' }).waitFor()
    await axe(context, link.url)
    await shot(page, 'dashboard-invite-en')
    await page.getByLabel('New password (at least 12 characters)').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByText('Your password is set. Sign in with it.').waitFor()
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in')
    await axe(context, `${origin}/dashboard/sign-in`)
    await shot(page, 'dashboard-sign-in-en')

    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Overview' }).waitFor()

    await page.getByRole('link', { name: 'Turn on two-factor sign-in' }).click()
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor()
    const qr = page.getByRole('img', { name: 'QR code of the key for your authenticator app' })
    expect(await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0)
    await axe(context, `${origin}/dashboard/2fa`)
    await shot(page, 'dashboard-2fa-en')
    const secret = (await page.locator('code').first().textContent())!.trim()
    const code = () =>
      totp((k, msg) => createHmac('sha1', k).update(msg).digest(), base32Decode(secret)!, t.clock.now())
    await page.getByLabel('Code your authenticator app shows').fill(code())
    await page.getByRole('button', { name: 'Turn on' }).click()
    await page.getByText('Keep these recovery codes somewhere safe', { exact: false }).waitFor()
    expect(await page.locator('li code').count()).toBe(10)
    await shot(page, 'dashboard-recovery-codes-en')

    await page.getByRole('link', { name: 'Back to the dashboard' }).click()
    await page.getByText('Two-factor sign-in is on.').waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await page.goto(`${origin}/dashboard`)
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in') // the session ended

    t.clock.advance(30) // the code that confirmed the enrolment is spent; the next step's signs in
    // keyboard only: focus moves through the form by Tab, Enter submits
    await page.locator('body').focus()
    await page.keyboard.press('Tab')
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id,
      ),
    ).toBe('email')
    await page.keyboard.type(EMAIL)
    await page.keyboard.press('Tab')
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor()
    await axe(context, `${origin}/dashboard/sign-in/code`)
    await shot(page, 'dashboard-sign-in-code-en')
    await page.keyboard.type(code()) // the code field has focus
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    expect(await page.getByText('owner', { exact: true }).count()).toBe(1)
    await axe(context, `${origin}/dashboard`) // the overview's own test takes its screenshots

    await page.goto(`${origin}/dashboard?lang=ru`)
    await page.getByText('Двухфакторный вход включён.').waitFor()
    expect(errors).toEqual([])
    await context.close()
  }, 120_000)
})
