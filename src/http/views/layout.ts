import { ASSETS_PREFIX, SCRIPT, STYLESHEET } from './assets.js'
import { html, type SafeHtml } from './html.js'
import { LANGS, MESSAGES, type Lang } from './i18n.js'

export interface LayoutOptions {
  readonly lang: Lang
  readonly title: string
  /** Path of this page without query, for the language links. */
  readonly path: string
  /** PUBLIC_URL's path ('' at the root): the assets are under it (PageContext.base). */
  readonly base: string
  /** Sandbox provider on: the TEST MODE banner is shown. */
  readonly testMode: boolean
  readonly main: SafeHtml
}

/**
 * The document around every payment-page view (the page itself and its 404): landmarks (banner, main,
 * contentinfo), one stylesheet and one deferred script from /pay/assets, nothing from anywhere else.
 */
export function layout(o: LayoutOptions): SafeHtml {
  const t = MESSAGES[o.lang]
  return html`<!doctype html>
    <html lang="${o.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <meta name="color-scheme" content="light" />
        <link rel="icon" href="data:," />
        <title>${o.title}</title>
        <link rel="stylesheet" href="${o.base + ASSETS_PREFIX + STYLESHEET.name}" />
        <script src="${o.base + ASSETS_PREFIX + SCRIPT.name}" defer></script>
      </head>
      <body>
        ${
          o.testMode &&
          html`<header class="banner">
            <p><strong>${t.testMode}</strong> ${t.testModeText}</p>
          </header>`
        }
        <main id="main">
          ${o.main}
          <p class="sr-only" aria-live="polite" data-announce></p>
        </main>
        <footer>
          <p>${t.footer}</p>
          <nav aria-label="${t.language}">
            <ul>
              ${LANGS.map(
                (l) =>
                  html`<li>
                    <a
                      href="${`${o.path}?lang=${l}`}"
                      lang="${l}"
                      hreflang="${l}"
                      ${l === o.lang ? html` aria-current="true"` : ''}
                      >${MESSAGES[l].languageName[l]}</a
                    >
                  </li>`,
              )}
            </ul>
          </nav>
        </footer>
      </body>
    </html> `
}
