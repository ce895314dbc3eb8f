/** The dashboard's server-rendered pages: no script, one stylesheet from our own origin, strings from ./strings.ts. */
import { ASSETS_PREFIX, DASHBOARD_STYLESHEET } from '../views/assets.js'
import { html, type SafeHtml } from '../views/html.js'
import type { Lang } from '../views/i18n.js'
import type { SignedIn } from '../../app/authenticate-session.js'
import type { Problem } from '../plugins/problem.js'
import { STRINGS } from './strings.js'

export interface Page {
  readonly lang: Lang
  /** PUBLIC_URL's path ('' at the root). */
  readonly base: string
  /** The language came from the page's `?lang=` (a language link): the page's own links keep it. */
  readonly langChosen?: boolean
}

function layout(p: Page, title: string, main: SafeHtml): string {
  const t = STRINGS[p.lang]
  return html`<!doctype html>
    <html lang="${p.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <link rel="icon" href="data:," />
        <title>${title} · ${t.dashboard}</title>
        <link rel="stylesheet" href="${p.base + ASSETS_PREFIX + DASHBOARD_STYLESHEET.name}" />
      </head>
      <body>
        <main class="narrow">
          <div class="card">${main}</div>
        </main>
      </body>
    </html>`.value
}

const field = (id: string, label: string, type: string, autocomplete: string, extra: SafeHtml | string = '') =>
  html`<p>
    <label for="${id}">${label}</label><br />
    <input id="${id}" name="${id}" type="${type}" autocomplete="${autocomplete}" required ${extra} />
  </p>`

const csrf = (token: string) => html`<input type="hidden" name="csrf" value="${token}" />`
const error = (text: string | undefined) => text !== undefined && html`<p role="alert" class="error">${text}</p>`

export function signInPage(p: Page, o: { csrf: string; error?: string; notice?: string; email?: string }): string {
  const t = STRINGS[p.lang]
  return layout(
    p,
    t.signIn,
    html`<h1>${t.signIn}</h1>
      ${o.notice !== undefined && html`<p role="status">${o.notice}</p>`} ${error(o.error)}
      <form method="post" action="${p.base}/dashboard/sign-in">
        ${csrf(o.csrf)} ${field('email', t.email, 'email', 'username', html`value="${o.email ?? ''}"`)}
        ${field('password', t.password, 'password', 'current-password')}
        <button class="btn btn-primary" type="submit">${t.signIn}</button>
      </form>`,
  )
}

export function codePage(p: Page, o: { csrf: string; error?: string }): string {
  const t = STRINGS[p.lang]
  return layout(
    p,
    t.codeStep,
    html`<h1>${t.codeStep}</h1>
      ${error(o.error)}
      <form method="post" action="${p.base}/dashboard/sign-in/code">
        ${csrf(o.csrf)} ${field('code', t.code, 'text', 'one-time-code', html`inputmode="text" autofocus`)}
        <button class="btn btn-primary" type="submit">${t.verify}</button>
      </form>`,
  )
}

export function invitePage(p: Page, o: { token: string; email: string; csrf: string; error?: string }): string {
  const t = STRINGS[p.lang]
  return layout(
    p,
    t.setPassword,
    html`<h1>${t.setPassword}</h1>
      <p>${t.setPasswordFor} <strong>${o.email}</strong></p>
      ${error(o.error)}
      <form method="post" action="${p.base}/dashboard/invite/${o.token}">
        ${csrf(o.csrf)}
        <input type="hidden" name="username" value="${o.email}" autocomplete="username" />
        ${field('password', t.newPassword, 'password', 'new-password', html`minlength="12"`)}
        <button class="btn btn-primary" type="submit">${t.setPassword}</button>
      </form>`,
  )
}

export function messagePage(p: Page, title: string, text: string): string {
  const t = STRINGS[p.lang]
  return layout(
    p,
    title,
    html`<h1>${title}</h1>
      <p>${text}</p>
      <p><a href="${p.base}/dashboard/sign-in">${t.signIn}</a></p>`,
  )
}

/** Who is signed in, and the offer of two-factor sign-in until it is on. */
export function landingContent(p: Page, who: SignedIn): SafeHtml {
  const t = STRINGS[p.lang]
  return html`<section class="card">
    <dl class="fields">
      <dt>${t.email}</dt>
      <dd>${who.user.email}</dd>
      <dt>${t.role}</dt>
      <dd>${t.roles[who.user.role]}</dd>
    </dl>
    <p>
      ${
        who.user.totpEnabledAt !== null
          ? t.twoFactorOn
          : html`<a href="${p.base}/dashboard/2fa">${t.twoFactorOffer}</a>`
      }
    </p>
  </section>`
}

/** An error shown to a person (the same status and code as the API's problem document). */
export function problemPage(p: Page, problem: Problem): string {
  const t = STRINGS[p.lang]
  return layout(
    p,
    problem.title,
    html`<h1>${problem.title}</h1>
      <p>${problem.detail}</p>
      <p class="muted">${t.errorCode}: <code>${problem.code}</code></p>
      <p><a href="${p.base}/dashboard">${t.back}</a></p>`,
  )
}

export function enrolPage(p: Page, o: { qr: string; secret: string; csrf: string; error?: string }): string {
  const t = STRINGS[p.lang]
  return layout(
    p,
    t.twoFactor,
    html`<h1>${t.twoFactor}</h1>
      <p>${t.enrolIntro}</p>
      <p><img src="${o.qr}" alt="${t.qrAlt}" width="200" height="200" /></p>
      <p>${t.key}: <code>${o.secret}</code></p>
      ${error(o.error)}
      <form method="post" action="${p.base}/dashboard/2fa">
        ${csrf(o.csrf)} ${field('code', t.appCode, 'text', 'one-time-code', html`inputmode="numeric"`)}
        <button class="btn btn-primary" type="submit">${t.confirm}</button>
      </form>`,
  )
}

export function recoveryPage(p: Page, codes: readonly string[]): string {
  const t = STRINGS[p.lang]
  return layout(
    p,
    t.twoFactor,
    html`<h1>${t.twoFactor}</h1>
      <p>${t.recoveryIntro}</p>
      <ul>
        ${codes.map((c) => html`<li><code>${c}</code></li>`)}
      </ul>
      <p><a href="${p.base}/dashboard">${t.back}</a></p>`,
  )
}
