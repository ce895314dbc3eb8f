/**
 * The operator console's pages (docs/dashboard.md#operator-console): content rendered into the shell's frame. This file
 * holds the console's home and what its pages share; ./console-merchant-views.ts, -invoice-, -health- the rest.
 */
import type { ConsoleHealth } from '../../../app/read-console-health.js'
import type { ServiceRules } from '../../../domain/catalog.js'
import { readStatus, type Invoice } from '../../../domain/invoice.js'
import type { Merchant } from '../../../domain/merchant.js'
import type { MerchantSummary } from '../../../ports/console-store.js'
import { formatDateTime, formatMoney } from '../../views/format.js'
import { html, type SafeHtml } from '../../views/html.js'
import type { Lang } from '../../views/i18n.js'
import { href } from '../shell.js'
import { CONSOLE_STRINGS } from '../strings/console.js'
import type { Page } from '../views.js'

export type ConsoleTab = 'home' | 'merchants' | 'invoices' | 'health'
const TABS: readonly { tab: Exclude<ConsoleTab, 'home'>; path: string }[] = [
  { tab: 'merchants', path: '/dashboard/console/merchants' },
  { tab: 'invoices', path: '/dashboard/console/invoices' },
  { tab: 'health', path: '/dashboard/console/health' },
]

export const when = (at: Date | null, lang: Lang, never = '—') => (at === null ? never : formatDateTime(at, lang))
export const count = (n: number, lang: Lang) => new Intl.NumberFormat(lang).format(n)
/** A count that stopped at the cap reads "10,000+". */
export const capped = (n: number, cap: number, lang: Lang) => (n >= cap ? `${count(cap, lang)}+` : count(n, lang))

/** An age as the largest sensible unit: "45 sec", "12 min", "5 hr", "3 days". */
export function formatAge(ms: number, lang: Lang): string {
  const s = Math.max(0, Math.round(ms / 1000))
  const [value, unit] =
    s < 120
      ? [s, 'second']
      : s < 7200
        ? [Math.floor(s / 60), 'minute']
        : s < 172800
          ? [Math.floor(s / 3600), 'hour']
          : [Math.floor(s / 86400), 'day']
  return new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'long' }).format(value)
}

export function feeText(service: ServiceRules, none: string): string {
  const fee = service.fee
  if (fee === undefined) return none
  const parts = [Number(fee.percent) !== 0 && `${fee.percent}%`, Number(fee.fixed) !== 0 && fee.fixed].filter(Boolean)
  return parts.length === 0 ? none : parts.join(' + ')
}

export function statusBadge(inv: Invoice, now: Date): SafeHtml {
  const s = readStatus(inv, now)
  return html`<span class="badge badge-${s}">${s}</span>`
}

export function merchantBadge(m: Merchant, lang: Lang): SafeHtml {
  const t = CONSOLE_STRINGS[lang]
  return html`<span class="badge badge-${m.status === 'active' ? 'paid' : 'failed'}"
    >${t.statuses[m.status] ?? m.status}</span
  >`
}

/** The console's own tabs under the shell's nav. */
export function consoleTabs(p: Page, active: ConsoleTab): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  return html`<nav class="tabs" aria-label="${t.tabs}">
    <ul>
      ${TABS.map(
        (x) =>
          html`<li><a href="${href(p, x.path)}" ${x.tab === active && html`aria-current="page"`}>${t[x.tab]}</a></li>`,
      )}
    </ul>
  </nav>`
}

export const notice = (text: string | undefined) =>
  text !== undefined && html`<p class="notice" role="status">${text}</p>`
export const error = (text: string | undefined) => text !== undefined && html`<p class="error" role="alert">${text}</p>`

export function searchForm(p: Page, q: string): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  return html`<form class="filters" method="get" action="${p.base}/dashboard/console/invoices" role="search">
    ${p.langChosen === true && html`<input type="hidden" name="lang" value="${p.lang}" />`}
    <p class="grow">
      <label for="q">${t.search}</label>
      <input id="q" name="q" type="search" value="${q}" aria-describedby="q-hint" />
      <small id="q-hint" class="muted">${t.searchHint}</small>
    </p>
    <button class="btn btn-primary" type="submit">${t.find}</button>
  </form>`
}

export function homeContent(p: Page, summaries: readonly MerchantSummary[], health: ConsoleHealth): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  const active = summaries.filter((s) => s.merchant.status === 'active').length
  const d = health.deliveries
  return html`${consoleTabs(p, 'home')}
    <p>${t.intro}</p>
    <div class="grid">
      <section class="card" aria-labelledby="h-merchants">
        <h2 id="h-merchants"><a href="${href(p, '/dashboard/console/merchants')}">${t.merchants}</a></h2>
        <dl class="stat">
          <dt>${t.active}</dt>
          <dd>${count(active, p.lang)}</dd>
          <dt>${t.disabledCount}</dt>
          <dd>${count(summaries.length - active, p.lang)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="h-queue">
        <h2 id="h-queue"><a href="${href(p, '/dashboard/console/health')}">${t.queue}</a></h2>
        <dl class="stat">
          <dt>${t.pending}</dt>
          <dd>${capped(d.pending, d.cap, p.lang)}</dd>
          <dt>${t.failing}</dt>
          <dd>${capped(d.failing, d.cap, p.lang)}</dd>
          <dt>${t.dead}</dt>
          <dd>${capped(d.dead, d.cap, p.lang)}</dd>
        </dl>
      </section>
    </div>
    <section class="card" aria-labelledby="h-search">
      <h2 id="h-search">${t.invoices}</h2>
      ${searchForm(p, '')}
    </section>`
}

export function invoicesTable(
  p: Page,
  invoices: readonly Invoice[],
  now: Date,
  names?: ReadonlyMap<string, string>,
): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  return html`<div class="scroll">
    <table>
      <thead>
        <tr>
          <th scope="col">${t.orderId}</th>
          ${names !== undefined && html`<th scope="col">${t.merchant}</th>`}
          <th scope="col" class="num">${t.amount}</th>
          <th scope="col">${t.status}</th>
          <th scope="col">${t.service}</th>
          <th scope="col">${t.created}</th>
        </tr>
      </thead>
      <tbody>
        ${invoices.map(
          (i) =>
            html`<tr>
              <td><a href="${href(p, `/dashboard/console/invoices/${i.id}`)}">${i.orderId}</a></td>
              ${names !== undefined && html`<td>${names.get(i.merchantId) ?? i.merchantId}</td>`}
              <td class="num">${formatMoney(i.amount, i.currency, p.lang)}</td>
              <td>${statusBadge(i, now)}</td>
              <td><code>${i.service}</code></td>
              <td>${formatDateTime(i.createdAt, p.lang)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`
}
