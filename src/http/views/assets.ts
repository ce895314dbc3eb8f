import { createHash } from 'node:crypto'
import { DASHBOARD_CSS } from './assets/dashboard-css.js'
import { PAY_CSS } from './assets/pay-css.js'
import { PAY_JS } from './assets/pay-js.js'

export interface Asset {
  /** File name under /pay/assets/, with a content hash: a changed file gets a new URL, so it can be cached for good. */
  readonly name: string
  readonly type: string
  readonly body: Buffer
}

function asset(stem: string, ext: string, type: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8')
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  return { name: `${stem}.${hash}.${ext}`, type, body }
}

export const ASSETS_PREFIX = '/pay/assets/'
export const STYLESHEET = asset('pay', 'css', 'text/css; charset=utf-8', PAY_CSS)
export const SCRIPT = asset('pay', 'js', 'text/javascript; charset=utf-8', PAY_JS)
/** The dashboard's signed-in pages (docs/dashboard.md#pages). */
export const DASHBOARD_STYLESHEET = asset('dashboard', 'css', 'text/css; charset=utf-8', DASHBOARD_CSS)

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  [STYLESHEET, SCRIPT, DASHBOARD_STYLESHEET].map((a) => [a.name, a]),
)
