import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

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
