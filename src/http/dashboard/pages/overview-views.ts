/**
 * The overview page's content (docs/dashboard.md#overview): the period links, the counts by status and the
 * conversion, a bar chart of the amount paid per day for each currency — SVG made here, no script — with a table of
 * the same figures for screen readers, the totals per currency, and the user's account.
 */
import type { Overview } from '../../../app/get-dashboard-overview.js'
import { OVERVIEW_WINDOWS } from '../../../app/get-dashboard-overview.js'
import type { SignedIn } from '../../../app/authenticate-session.js'
import { dayStart } from '../../../domain/daily-totals.js'
import type { Minor } from '../../../domain/money.js'
import { formatMoney } from '../../views/format.js'
import { html, type SafeHtml } from '../../views/html.js'
import type { Lang } from '../../views/i18n.js'
import { href } from '../shell.js'
import { OVERVIEW_STRINGS } from '../strings/overview.js'
import { landingContent, type Page } from '../views.js'

const STATUS_ORDER = ['pending', 'hold', 'paid', 'failed', 'expired'] as const

export function overviewContent(p: Page, who: SignedIn, o: Overview): SafeHtml {
  const t = OVERVIEW_STRINGS[p.lang]
  const count = new Intl.NumberFormat(p.lang)
  const percent = new Intl.NumberFormat(p.lang, { style: 'percent', maximumFractionDigits: 1 })
  const date = dateFormat(p.lang, 'long')
  const currencies = [...new Set(o.paidByDay.flatMap((d) => [...d.amounts.keys()]))].sort()
  return html`<nav class="periods" aria-label="${t.period}">
      <ul>
        ${OVERVIEW_WINDOWS.map(
          (n) =>
            html`<li>
              <a href="${href(p, '/dashboard', { days: String(n) })}" ${n === o.days && html`aria-current="page"`}
                >${t.lastDays(n)}</a
              >
            </li>`,
        )}
      </ul>
    </nav>
    <p class="muted">${t.window(date.format(dayStart(o.fromDay)), date.format(dayStart(o.toDay)))}</p>
    <section class="card" aria-labelledby="statuses">
      <h2 id="statuses">${t.statuses}</h2>
      <dl class="grid stats">
        <div class="stat" data-figure="created">
          <dt>${t.created}</dt>
          <dd>${count.format(o.created)}</dd>
        </div>
        ${STATUS_ORDER.map(
          (s) =>
            html`<div class="stat" data-figure="${s}">
              <dt><span class="badge badge-${s}">${t.status[s]}</span></dt>
              <dd>${count.format(o.byStatus[s])}</dd>
            </div>`,
        )}
        <div class="stat" data-figure="conversion">
          <dt>${t.conversion}</dt>
          <dd>${o.conversion === null ? t.none : percent.format(o.conversion)}</dd>
        </div>
      </dl>
      <p class="muted">${t.conversionNote}</p>
    </section>
    <section class="card" aria-labelledby="volume">
      <h2 id="volume">${t.volume}</h2>
      ${currencies.length === 0 ? html`<p>${t.noPayments}</p>` : currencies.map((c) => volumeChart(p, o, c))}
    </section>
    <section class="card" aria-labelledby="totals">
      <h2 id="totals">${t.totals}</h2>
      ${
        o.totals.length === 0
          ? html`<p>${t.noPayments}</p>`
          : html`<div class="scroll">
              <table>
                <caption class="muted">
                  ${t.totalsNote}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">${t.currency}</th>
                    <th scope="col" class="num">${t.payments}</th>
                    <th scope="col" class="num">${t.paidAmount}</th>
                    <th scope="col" class="num">${t.credited}</th>
                    <th scope="col" class="num">${t.refunded}</th>
                  </tr>
                </thead>
                <tbody>
                  ${o.totals.map(
                    (c) =>
                      html`<tr>
                        <th scope="row">${c.currency}</th>
                        <td class="num">${count.format(c.paidCount)}</td>
                        <td class="num">${formatMoney(c.paidAmount, c.currency, p.lang)}</td>
                        <td class="num">${formatMoney(c.creditedAmount, c.currency, p.lang)}</td>
                        <td class="num">${formatMoney(c.refundedAmount, c.currency, p.lang)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section aria-labelledby="account">
      <h2 id="account">${t.account}</h2>
      ${landingContent(p, who)}
    </section>`
}

function dateFormat(lang: Lang, month: 'short' | 'long'): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(lang, {
    day: 'numeric',
    month,
    timeZone: 'UTC',
    ...(month === 'long' && { year: 'numeric' }),
  })
}

// The chart's drawing area, in the SVG's own units (it scales to the card's width).
const W = 720
const H = 220
const LEFT = 8
const RIGHT = 8
const TOP = 24
const BOTTOM = 28

/** One currency's paid amount per day: bars on the same scale, the largest day's amount at the top. */
function volumeChart(p: Page, o: Overview, currency: string): SafeHtml {
  const t = OVERVIEW_STRINGS[p.lang]
  const short = dateFormat(p.lang, 'short')
  const days = o.paidByDay.map((d) => ({ day: d.day, amount: d.amounts.get(currency) ?? (0 as Minor) }))
  const max = Math.max(...days.map((d) => d.amount))
  const plotW = W - LEFT - RIGHT
  const plotH = H - TOP - BOTTOM
  const step = plotW / days.length
  const barW = Math.max(1, step * 0.7)
  const labelAt = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])
  const id = `chart-${currency}`
  const fixed = (n: number) => n.toFixed(1)
  return html`<figure class="chart" aria-labelledby="${id}">
    <figcaption id="${id}">${t.volumeOf(currency)}</figcaption>
    <svg viewBox="0 0 ${W} ${H}" aria-hidden="true" focusable="false">
      <line class="grid-line" x1="${LEFT}" y1="${TOP}" x2="${W - RIGHT}" y2="${TOP}" />
      <line class="grid-line" x1="${LEFT}" y1="${TOP + plotH / 2}" x2="${W - RIGHT}" y2="${TOP + plotH / 2}" />
      <line class="axis" x1="${LEFT}" y1="${TOP + plotH}" x2="${W - RIGHT}" y2="${TOP + plotH}" />
      <text x="${LEFT}" y="${TOP - 8}">${formatMoney(max as Minor, currency, p.lang)}</text>
      ${days.map((d, i) => {
        const h = max === 0 ? 0 : (d.amount / max) * plotH
        const x = LEFT + i * step + (step - barW) / 2
        return html`${
          h > 0 &&
          html`<rect
            class="bar"
            x="${fixed(x)}"
            y="${fixed(TOP + plotH - h)}"
            width="${fixed(barW)}"
            height="${fixed(h)}"
            ><title>${short.format(dayStart(d.day))}: ${formatMoney(d.amount, currency, p.lang)}</title></rect
          >`
        }${
          labelAt.has(i) &&
          html`<text
            x="${fixed(LEFT + i * step + step / 2)}"
            y="${H - 8}"
            text-anchor="${i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle'}"
            >${short.format(dayStart(d.day))}</text
          >`
        }`
      })}
    </svg>
    <table class="sr-only">
      <caption>
        ${t.volumeOf(currency)}
      </caption>
      <thead>
        <tr>
          <th scope="col">${t.day}</th>
          <th scope="col">${t.paid}</th>
        </tr>
      </thead>
      <tbody>
        ${days.map(
          (d) =>
            html`<tr>
              <th scope="row">${short.format(dayStart(d.day))}</th>
              <td>${formatMoney(d.amount, currency, p.lang)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </figure>`
}
