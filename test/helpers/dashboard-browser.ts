/**
 * The dashboard's Chromium tests' common ground: the app listening on a free port with PUBLIC_URL at it, a browser,
 * axe on a page seen with a session's cookies, and screenshots — to docs/ with UPDATE_SCREENSHOTS=1, else to a
 * temporary directory.
 */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { expect } from 'vitest'
import { launchBrowser, seriousViolations } from './browser.js'
import { buildTestApp, type TestApp } from './build-test-app.js'
import { FAST_PASSWORDS } from './dashboard.js'
import { freePort } from './free-port.js'

/** A desktop window, in UTC, that the screenshots are taken in. */
export const DESKTOP: BrowserContextOptions = {
  viewport: { width: 1100, height: 800 },
  deviceScaleFactor: 1,
  timezoneId: 'UTC',
  locale: 'en-US',
}

export interface DashboardBrowser {
  readonly t: TestApp
  readonly browser: Browser
  /** http://127.0.0.1:<port>, the app's PUBLIC_URL. */
  readonly origin: string
  /** axe on the page at `url`, in a context that shares `context`'s cookies (axe's script needs bypassCSP). */
  axe(context: BrowserContext, url: string): Promise<void>
  /** A full-page screenshot named `<name>.png`. */
  shot(page: Page, name: string): Promise<Buffer>
  close(): Promise<void>
}

export async function openDashboardBrowser(
  env: Record<string, string> = {},
  opts: Parameters<typeof buildTestApp>[1] = {},
  window: BrowserContextOptions = DESKTOP,
): Promise<DashboardBrowser> {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const t = await buildTestApp({ PUBLIC_URL: origin, ...env }, { passwords: FAST_PASSWORDS, ...opts })
  await t.app.listen({ port, host: '127.0.0.1' })
  const browser = await launchBrowser()
  const dir = process.env['UPDATE_SCREENSHOTS'] === '1' ? 'docs' : mkdtempSync(join(tmpdir(), 'dashboard-shots-'))
  mkdirSync(dir, { recursive: true })
  return {
    t,
    browser,
    origin,
    async axe(context, url) {
      const audit = await browser.newContext({ ...window, bypassCSP: true })
      await audit.addCookies(await context.cookies())
      const page = await audit.newPage()
      await page.goto(url)
      expect({ url, violations: await seriousViolations(page) }).toEqual({ url, violations: [] })
      await audit.close()
    },
    shot: (page, name) => page.screenshot({ fullPage: true, path: join(dir, `${name}.png`) }),
    async close() {
      await browser.close()
      await t.close()
    },
  }
}
