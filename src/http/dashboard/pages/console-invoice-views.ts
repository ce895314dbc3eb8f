/** The console's invoice lookup and read-only invoice page (docs/dashboard.md#operator-console). */
import type { InvoiceRecord } from '../../../app/get-invoice-record.js'
import type { Invoice } from '../../../domain/invoice.js'
import { formatDateTime, formatMoney } from '../../views/format.js'
import { html, type SafeHtml } from '../../views/html.js'
import { href } from '../shell.js'
import { CONSOLE_STRINGS } from '../strings/console.js'
import type { Page } from '../views.js'
import { consoleTabs, invoicesTable, searchForm, statusBadge, when } from './console-views.js'

export function invoicesContent(
  p: Page,
  o: { q: string; found: readonly Invoice[] | undefined; names: ReadonlyMap<string, string>; now: Date },
): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  return html`${consoleTabs(p, 'invoices')}
    <section class="card" aria-labelledby="h-lookup">
      <h2 id="h-lookup" class="sr-only">${t.invoices}</h2>
      ${searchForm(p, o.q)}
      ${
        o.found !== undefined &&
        html`<p role="status">${o.found.length === 0 ? t.foundNone : t.found(o.found.length)}</p>
          ${o.found.length > 0 && invoicesTable(p, o.found, o.now, o.names)}`
      }
    </section>`
}

export function invoiceContent(p: Page, r: InvoiceRecord, now: Date): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  const i = r.invoice
  const money = (v: number | null) => (v === null ? '—' : formatMoney(v as Invoice['amount'], i.currency, p.lang))
  return html`${consoleTabs(p, 'invoices')}
    <p class="muted">${t.readOnly}</p>
    <section class="card" aria-labelledby="h-fields">
      <h2 id="h-fields">${t.fields}</h2>
      <dl class="fields">
        <dt>${t.invoiceId}</dt>
        <dd><code>${i.id}</code></dd>
        <dt>${t.merchant}</dt>
        <dd>
          <a href="${href(p, `/dashboard/console/merchants/${i.merchantId}`)}">${r.merchant?.name ?? i.merchantId}</a>
        </dd>
        <dt>${t.orderId}</dt>
        <dd><code>${i.orderId}</code></dd>
        <dt>${t.status}</dt>
        <dd>${statusBadge(i, now)}</dd>
        <dt>${t.amount}</dt>
        <dd>${money(i.amount)}</dd>
        <dt>${t.fee}</dt>
        <dd>${money(i.fee)}</dd>
        <dt>${t.credited}</dt>
        <dd>${money(i.credited)}</dd>
        <dt>${t.service}</dt>
        <dd><code>${i.service}</code></dd>
        <dt>${t.comment}</dt>
        <dd>${i.comment ?? '—'}</dd>
        <dt>${t.callbackUrl}</dt>
        <dd>${i.callbackUrl === null ? '—' : html`<code>${i.callbackUrl}</code>`}</dd>
        <dt>${t.created}</dt>
        <dd>${formatDateTime(i.createdAt, p.lang)}</dd>
        <dt>${t.expires}</dt>
        <dd>${formatDateTime(i.expiresAt, p.lang)}</dd>
        <dt>${t.held}</dt>
        <dd>${when(i.heldAt, p.lang)}</dd>
        <dt>${t.paid}</dt>
        <dd>${when(i.paidAt, p.lang)}</dd>
        <dt>${t.updated}</dt>
        <dd>${formatDateTime(i.updatedAt, p.lang)}</dd>
      </dl>
    </section>
    <section class="card" aria-labelledby="h-events">
      <h2 id="h-events">${t.events}</h2>
      ${
        r.events.length === 0
          ? html`<p>${t.none}</p>`
          : html`<ol class="timeline">
              ${r.events.map(
                (e) =>
                  html`<li>
                    <code>${e.type}</code> ·
                    <time datetime="${e.createdAt.toISOString()}">${formatDateTime(e.createdAt, p.lang)}</time>
                  </li>`,
              )}
            </ol>`
      }
    </section>
    <section class="card" aria-labelledby="h-deliveries">
      <h2 id="h-deliveries">${t.deliveries}</h2>
      ${
        r.deliveries.length === 0
          ? html`<p>${t.none}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.type}</th>
                    <th scope="col">${t.status}</th>
                    <th scope="col" class="num">${t.attempts}</th>
                    <th scope="col">${t.lastAnswer}</th>
                    <th scope="col">${t.created}</th>
                  </tr>
                </thead>
                <tbody>
                  ${r.deliveries.map((d) => {
                    const last = d.attempts.at(-1)
                    return html`<tr>
                      <td><code>${d.type}</code></td>
                      <td><span class="badge">${d.status}</span></td>
                      <td class="num">${d.attempts.length}</td>
                      <td>
                        ${
                          last === undefined
                            ? '—'
                            : html`${last.statusCode ?? t.noAnswer}${last.error !== null && html` <small class="muted">${last.error}</small>`}`
                        }
                      </td>
                      <td>${formatDateTime(d.createdAt, p.lang)}</td>
                    </tr>`
                  })}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section class="card" aria-labelledby="h-refunds">
      <h2 id="h-refunds">${t.refunds}</h2>
      ${
        r.refunds.length === 0
          ? html`<p>${t.none}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col" class="num">${t.amount}</th>
                    <th scope="col">${t.status}</th>
                    <th scope="col">${t.reason}</th>
                    <th scope="col">${t.created}</th>
                  </tr>
                </thead>
                <tbody>
                  ${r.refunds.map(
                    (f) =>
                      html`<tr>
                        <td class="num">${formatMoney(f.amount, f.currency, p.lang)}</td>
                        <td><span class="badge">${f.status}</span></td>
                        <td>${f.reason ?? '—'}</td>
                        <td>${formatDateTime(f.createdAt, p.lang)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>`
}
