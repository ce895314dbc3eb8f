/** The invoices list and the invoice page (docs/dashboard.md#invoices): html`` views, strings from ../strings/invoices.ts. */
import type { DeliveryWithAttempts } from '../../../domain/delivery.js'
import { storedExponent } from '../../../domain/invoice-view.js'
import { STATUSES, type Invoice, type InvoiceEvent, type Status } from '../../../domain/invoice.js'
import { isoTime } from '../../../domain/iso-time.js'
import { formatAmount, type Minor } from '../../../domain/money.js'
import type { Refund } from '../../../domain/refund.js'
import { html, safeHref, type SafeHtml } from '../../views/html.js'
import { csrfField, href } from '../shell.js'
import { INVOICE_STRINGS } from '../strings/invoices.js'
import type { Page } from '../views.js'

/** The list's filters as the form holds them (text as typed; '' when not set). */
export interface FilterForm {
  readonly status: string
  readonly service: string
  readonly currency: string
  readonly created_from: string
  readonly created_to: string
  readonly q: string
}

export const FILTER_NAMES = ['status', 'service', 'currency', 'created_from', 'created_to', 'q'] as const

/** The filters that are set, as query parameters (the pager's, the CSV link's). */
export function filterQuery(f: FilterForm): Record<string, string> {
  return Object.fromEntries(FILTER_NAMES.filter((k) => f[k] !== '').map((k) => [k, f[k]]))
}

/** Minor units with the currency's exponent, then the code: "1234.50 EUR". */
export const money = (minor: Minor, currency: string): string =>
  `${formatAmount(minor, storedExponent(currency))} ${currency}`

/** A time as people read it in the dashboard: "2026-11-27 05:30:12 UTC". */
export const when = (at: Date): string => `${isoTime(at).slice(0, 19).replace('T', ' ')} UTC`

const badge = (p: Page, status: Status) =>
  html`<span class="badge badge-${status}">${INVOICE_STRINGS[p.lang].statuses[status]}</span>`

export function listContent(
  p: Page,
  o: {
    filters: FilterForm
    invoices: readonly Invoice[]
    statusOf: (i: Invoice) => Status
    next: string | null
    prev: string | null
  },
): SafeHtml {
  const t = INVOICE_STRINGS[p.lang]
  const f = o.filters
  const query = filterQuery(f)
  const input = (name: keyof FilterForm, label: string, type: string, extra: SafeHtml | string = '') =>
    html`<div>
      <label for="f-${name}">${label}</label>
      <input id="f-${name}" name="${name}" type="${type}" value="${f[name]}" ${extra} />
    </div>`
  return html`<form class="filters" method="get" action="${p.base}/dashboard/invoices" aria-label="${t.filters}">
      ${p.langChosen === true && html`<input type="hidden" name="lang" value="${p.lang}" />`}
      <div>
        <label for="f-status">${t.status}</label>
        <select id="f-status" name="status">
          <option value="">${t.anyStatus}</option>
          ${STATUSES.map(
            (s) => html`<option value="${s}" ${f.status === s && html`selected`}>${t.statuses[s]}</option>`,
          )}
        </select>
      </div>
      ${input('service', t.service, 'text', html`size="10" autocomplete="off"`)}
      ${input('currency', t.currency, 'text', html`size="4" maxlength="3" autocomplete="off"`)}
      ${input('created_from', t.createdFrom, 'date')} ${input('created_to', t.createdTo, 'date')}
      ${input('q', t.search, 'search', html`size="28" autocomplete="off"`)}
      <div class="row">
        <button class="btn btn-primary" type="submit">${t.apply}</button>
        <a class="btn btn-secondary" href="${href(p, '/dashboard/invoices')}">${t.reset}</a>
        <a class="btn btn-secondary" href="${href(p, '/dashboard/invoices.csv', query)}" download>${t.exportCsv}</a>
      </div>
    </form>
    ${
      o.invoices.length === 0
        ? html`<p class="card">${t.none}</p>`
        : html`<div class="card scroll">
            <table>
              <caption>
                ${t.listCaption}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${t.orderId}</th>
                  <th scope="col" class="num">${t.amount}</th>
                  <th scope="col">${t.status}</th>
                  <th scope="col">${t.service}</th>
                  <th scope="col">${t.created}</th>
                </tr>
              </thead>
              <tbody>
                ${o.invoices.map(
                  (i) =>
                    html`<tr>
                      <td><a href="${href(p, `/dashboard/invoices/${i.id}`)}">${i.orderId}</a></td>
                      <td class="num">${money(i.amount, i.currency)}</td>
                      <td>${badge(p, o.statusOf(i))}</td>
                      <td>${i.service}</td>
                      <td>${when(i.createdAt)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${
      (o.prev !== null || o.next !== null) &&
      html`<nav class="pager" aria-label="${t.pages}">
        ${
          o.prev !== null &&
          html`<a rel="prev" href="${href(p, '/dashboard/invoices', { ...query, before: o.prev })}">${t.newer}</a>`
        }
        ${
          o.next !== null &&
          html`<a rel="next" href="${href(p, '/dashboard/invoices', { ...query, cursor: o.next })}">${t.older}</a>`
        }
      </nav>`
    }`
}

export type Notice = keyof (typeof INVOICE_STRINGS)['en']['done']

export interface InvoicePageData {
  readonly invoice: Invoice
  readonly status: Status
  readonly refunded: Minor
  readonly events: readonly InvoiceEvent[]
  readonly deliveries: readonly DeliveryWithAttempts[]
  readonly refunds: readonly Refund[]
  /** The owner's forms carry this session's CSRF token; a viewer gets no forms. */
  readonly csrf: string | undefined
  /** The refund form's Idempotency-Key: made once per page shown, so a double submit makes one refund. */
  readonly refundKey: string
  readonly notice?: Notice | undefined
  readonly error?: { readonly status: number; readonly code: string; readonly detail: string } | undefined
}

export function invoiceContent(p: Page, d: InvoicePageData): SafeHtml {
  const t = INVOICE_STRINGS[p.lang]
  const i = d.invoice
  const path = `/dashboard/invoices/${i.id}`
  const action = (what: string) => href(p, `${path}/${what}`)
  const link = (url: string | null) => {
    const safe = safeHref(url)
    return safe === undefined ? (url ?? '—') : html`<a href="${safe}" rel="noreferrer">${url}</a>`
  }
  const row = (label: string, value: SafeHtml | string | null) =>
    html`<dt>${label}</dt>
      <dd>${value ?? '—'}</dd>`
  const opt = (at: Date | null) => (at === null ? null : when(at))
  const timeline: { at: Date; label: string }[] = [
    { at: i.createdAt, label: t.events.created },
    ...d.events.map((e) => ({ at: e.createdAt, label: t.events[e.type] })),
  ]
  const csrf = d.csrf
  const button = (what: string, label: string, cls = 'btn-secondary') =>
    csrf !== undefined &&
    html`<form class="inline" method="post" action="${action(what)}">
      ${csrfField(csrf)}<button class="btn ${cls}" type="submit">${label}</button>
    </form>`
  const actions = [
    d.status === 'hold' && button('capture', t.capture, 'btn-primary'),
    d.status === 'hold' && button('cancel', t.cancelHold, 'btn-danger'),
    d.status === 'pending' && button('cancel', t.cancelPending, 'btn-danger'),
  ].filter((a) => a !== false)

  return html`<p><a href="${href(p, '/dashboard/invoices')}">${t.back}</a></p>
    ${d.notice !== undefined && html`<p role="status" class="notice">${t.done[d.notice]}</p>`}
    ${
      d.error !== undefined &&
      html`<p role="alert" class="error">
        ${t.failedWith}: ${d.error.detail} (<code>${d.error.status} ${d.error.code}</code>)
      </p>`
    }
    <section class="card" aria-labelledby="h-details">
      <h2 id="h-details">${t.details}</h2>
      <dl class="fields">
        ${row(t.fields.id, html`<span class="mono">${i.id}</span>`)} ${row(t.fields.orderId, i.orderId)}
        ${row(t.fields.amount, money(i.amount, i.currency))} ${row(t.fields.status, badge(p, d.status))}
        ${row(t.fields.service, i.service)} ${row(t.fields.comment, i.comment)}
        ${row(t.fields.credited, i.credited === null ? null : money(i.credited, i.currency))}
        ${row(t.fields.fee, i.fee === null ? null : money(i.fee, i.currency))}
        ${row(t.fields.refunded, money(d.refunded, i.currency))} ${row(t.fields.payUrl, link(i.payUrl))}
        ${row(t.fields.callbackUrl, i.callbackUrl)} ${row(t.fields.successUrl, i.successUrl)}
        ${row(t.fields.failUrl, i.failUrl)} ${row(t.fields.createdAt, when(i.createdAt))}
        ${row(t.fields.expiresAt, when(i.expiresAt))} ${row(t.fields.heldAt, opt(i.heldAt))}
        ${row(t.fields.paidAt, opt(i.paidAt))} ${row(t.fields.updatedAt, when(i.updatedAt))}
      </dl>
    </section>
    ${
      actions.length > 0 &&
      html`<section class="card" aria-labelledby="h-actions">
        <h2 id="h-actions">${t.actions}</h2>
        <div class="row">${actions}</div>
      </section>`
    }
    <section class="card" aria-labelledby="h-timeline">
      <h2 id="h-timeline">${t.timeline}</h2>
      <ol class="timeline">
        ${timeline.map((e) => html`<li><time datetime="${isoTime(e.at)}">${when(e.at)}</time> ${e.label}</li>`)}
      </ol>
    </section>
    <section class="card" aria-labelledby="h-refunds">
      <h2 id="h-refunds">${t.refunds}</h2>
      ${
        d.refunds.length === 0
          ? html`<p class="muted">${t.noRefunds}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.fields.createdAt}</th>
                    <th scope="col" class="num">${t.amount}</th>
                    <th scope="col">${t.status}</th>
                    <th scope="col">${t.reason}</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.refunds.map(
                    (r) =>
                      html`<tr>
                        <td>${when(r.createdAt)}</td>
                        <td class="num">${money(r.amount, r.currency)}</td>
                        <td>${t.refundStatuses[r.status]}${r.failureReason !== null && html` — ${r.failureReason}`}</td>
                        <td>${r.reason ?? '—'}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      ${
        csrf !== undefined &&
        d.status === 'paid' &&
        html`<form class="filters" method="post" action="${action('refund')}">
          ${csrfField(csrf)}<input type="hidden" name="idempotency_key" value="${d.refundKey}" />
          <div>
            <label for="r-amount">${t.refundAmount}</label>
            <input id="r-amount" name="amount" type="text" inputmode="decimal" size="12" autocomplete="off" />
          </div>
          <div>
            <label for="r-reason">${t.refundReason}</label>
            <input id="r-reason" name="reason" type="text" size="30" maxlength="500" autocomplete="off" />
          </div>
          <button class="btn btn-danger" type="submit">${t.refund}</button>
        </form>`
      }
    </section>
    <section class="card" aria-labelledby="h-deliveries">
      <h2 id="h-deliveries">${t.deliveries}</h2>
      ${
        d.deliveries.length === 0
          ? html`<p class="muted">${t.noDeliveries}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.event}</th>
                    <th scope="col">${t.deliveryStatus}</th>
                    <th scope="col">${t.attempts}</th>
                    ${csrf !== undefined && html`<th scope="col"><span class="sr-only">${t.actions}</span></th>`}
                  </tr>
                </thead>
                <tbody>
                  ${d.deliveries.map(
                    (dl) =>
                      html`<tr>
                        <td><code>${dl.type}</code><br /><span class="muted">${when(dl.createdAt)}</span></td>
                        <td>
                          ${t.deliveryStatuses[dl.status]}
                          ${
                            dl.nextAttemptAt !== null &&
                            html`<br /><span class="muted">${t.nextAttempt}: ${when(dl.nextAttemptAt)}</span>`
                          }
                        </td>
                        <td>
                          ${
                            dl.attempts.length === 0
                              ? t.noAttempts
                              : html`<ol class="attempts">
                                  ${dl.attempts.map(
                                    (a) =>
                                      html`<li>
                                        ${when(a.at)} —
                                        <strong>${a.statusCode === null ? t.noAnswer : String(a.statusCode)}</strong>
                                        ${a.error !== null && html`<span class="muted">${a.error}</span>`}
                                      </li>`,
                                  )}
                                </ol>`
                          }
                        </td>
                        ${
                          csrf !== undefined &&
                          html`<td>
                            <form class="inline" method="post" action="${action(`deliveries/${dl.id}/redeliver`)}">
                              ${csrfField(csrf)}<button class="btn btn-secondary" type="submit">${t.redeliver}</button>
                            </form>
                          </td>`
                        }
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>`
}
