import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AxeResults } from 'axe-core'
import { chromium, type Browser, type Page } from 'playwright-core'

/** Debian's Chromium, or wherever CHROMIUM_PATH points. playwright-core downloads no browser of its own. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

/**
 * Why the browser tests are skipped, or undefined when they run. A developer machine without Chromium skips them;
 * in CI a missing browser must fail loudly instead of passing silently, so there they always run.
 */
export const browserSkipReason: string | undefined =
  !existsSync(CHROMIUM_PATH) && !process.env['CI']
    ? `no Chromium at ${CHROMIUM_PATH} (set CHROMIUM_PATH to run the browser tests)`
    : undefined

// No sandbox (containers run as root), no GPU, and nothing that phones home or updates itself during a test.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Headless Chromium with a fresh temporary profile (playwright's launch creates and removes one per browser). */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...ARGS, ...extraArgs] })
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** axe-core's serious and critical violations on the page as it is now (none is what a page must show). */
export async function seriousViolations(
  page: Page,
): Promise<{ readonly id: string; readonly help: string; readonly nodes: string[] }[]> {
  await page.addScriptTag({ content: AXE_SOURCE })
  const results = await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<AxeResults> } }).axe.run(),
  )
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((x) => x.html) }))
}
