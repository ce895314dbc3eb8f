/**
 * The signed-in pages' frame (docs/dashboard.md#pages): a header with whose dashboard it is, the sections the
 * user's role reaches, the language links and sign-out; the page's own content in a wide `<main>`. Each page module
 * renders its content and hands it to `appPage`.
 */
import type { SignedIn } from '../../app/authenticate-session.js'
import { ASSETS_PREFIX, DASHBOARD_STYLESHEET } from '../views/assets.js'
import { html, type SafeHtml } from '../views/html.js'
import { LANGS } from '../views/i18n.js'
import { STRINGS } from './strings.js'
import type { Page } from './views.js'

/** The merchant's sections, then the operator's. */
export type Section = 'overview' | 'invoices' | 'webhooks' | 'keys' | 'team' | 'settings' | 'console'

const MERCHANT_NAV: readonly { section: Section; path: string }[] = [
  { section: 'overview', path: '/dashboard' },
  { section: 'invoices', path: '/dashboard/invoices' },
  { section: 'webhooks', path: '/dashboard/webhooks' },
  { section: 'keys', path: '/dashboard/api-keys' },
  { section: 'team', path: '/dashboard/team' },
  { section: 'settings', path: '/dashboard/settings' },
]
const ADMIN_NAV: readonly { section: Section; path: string }[] = [{ section: 'console', path: '/dashboard/console' }]

/** A dashboard path under the base, with `lang` kept when the page's language was chosen by a link. */
export function href(p: Page, path: string, query: Readonly<Record<string, string>> = {}): string {
  const q = new URLSearchParams(query)
  if (p.langChosen === true) q.set('lang', p.lang)
  const s = q.toString()
  return p.base + path + (s === '' ? '' : (path.includes('?') ? '&' : '?') + s)
}

/** The CSRF field every signed-in form carries (docs/dashboard.md#sessions). */
export const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}" />`

export function appPage(p: Page, who: SignedIn, active: Section, title: string, main: SafeHtml): string {
  const t = STRINGS[p.lang]
  const nav = who.user.role === 'admin' ? ADMIN_NAV : MERCHANT_NAV
  return html`<!doctype html>
    <html lang="${p.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <link rel="icon" href="data:," />
        <title>${title} · ${who.merchant?.name ?? t.dashboard}</title>
        <link rel="stylesheet" href="${p.base + ASSETS_PREFIX + DASHBOARD_STYLESHEET.name}" />
      </head>
      <body>
        <a class="skip" href="#content">${t.skipToContent}</a>
        <header class="top">
          <div class="bar">
            <span class="who"
              >${who.merchant?.name ?? t.console}<small>${who.user.email} · ${t.roles[who.user.role]}</small></span
            >
            <nav aria-label="${t.sections}">
              <ul>
                ${nav.map(
                  (n) =>
                    html`<li>
                      <a href="${href(p, n.path)}" ${n.section === active && html`aria-current="page"`}
                        >${t.nav[n.section]}</a
                      >
                    </li>`,
                )}
              </ul>
            </nav>
            <span class="langs"
              >${LANGS.filter((l) => l !== p.lang).map(
                (l) => html`<a href="?lang=${l}" hreflang="${l}" lang="${l}">${STRINGS[l].languageName}</a>`,
              )}</span
            >
            <form method="post" action="${p.base}/dashboard/sign-out">
              ${csrfField(who.session.csrfToken)}<button class="btn" type="submit">${t.signOut}</button>
            </form>
          </div>
        </header>
        <main class="wide" id="content" tabindex="-1">
          <h1>${title}</h1>
          ${main}
        </main>
      </body>
    </html>`.value
}
