/**
 * The API reference at /docs in a real browser (docs/api.md#public-endpoints), reached as an operator reaches it: over plain http at a
 * host name that is not localhost (Chromium treats localhost and 127.0.0.1 as secure and forgives what it would
 * not elsewhere). The name is mapped to 127.0.0.1 inside the browser: no DNS, no network.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserSkipReason, launchBrowser } from '../helpers/browser.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

describe.skipIf(browserSkipReason !== undefined)('/docs in a real browser (docs/api.md#public-endpoints)', () => {
  let t: TestApp
  let browser: Browser
  let port: number
  beforeAll(async () => {
    t = await buildTestApp()
    port = await t.listen()
    browser = await launchBrowser(['--host-resolver-rules=MAP docs.test 127.0.0.1'])
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  it('when opened over http at a host name, then it loads its own assets over http and lists every operation', async () => {
    const page = await browser.newPage()
    const failed: string[] = []
    page.on('requestfailed', (r) => failed.push(r.url()))
    await page.goto(`http://docs.test:${port}/docs/`)
    const operations = page.locator('.opblock')
    await expect.poll(() => operations.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(10)
    expect(await page.locator('.opblock-summary-path', { hasText: '/api/invoice/getInfo' }).count()).toBe(1)
    expect(failed).toEqual([])
    await page.close()
  })
})
