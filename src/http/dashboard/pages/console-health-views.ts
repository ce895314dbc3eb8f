/** The console's health page (docs/dashboard.md#operator-console): webhook queue, notifications, reconciliation. */
import type { ConsoleHealth } from '../../../app/read-console-health.js'
import type { ProviderNotificationStats } from '../../../ports/provider-metrics.js'
import { formatDateTime } from '../../views/format.js'
import { html, type SafeHtml } from '../../views/html.js'
import { href } from '../shell.js'
import { CONSOLE_STRINGS } from '../strings/console.js'
import type { Page } from '../views.js'
import { capped, consoleTabs, count, formatAge } from './console-views.js'

function lagRow(p: Page, label: string, s: { due: number; oldestDueAt: Date | null }, now: Date): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  return html`<tr>
    <th scope="row">${label}</th>
    <td class="num">${count(s.due, p.lang)}</td>
    <td>${s.oldestDueAt === null ? t.noLag : formatAge(now.getTime() - s.oldestDueAt.getTime(), p.lang)}</td>
  </tr>`
}

/** Strips a URL to its origin and path: a query may carry a merchant's token. */
function endpointText(url: string): string {
  try {
    const u = new URL(url)
    return u.origin + u.pathname
  } catch {
    return url
  }
}

export function healthContent(
  p: Page,
  h: ConsoleHealth,
  o: { providers: readonly ProviderNotificationStats[]; names: ReadonlyMap<string, string> },
): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  const d = h.deliveries
  return html`${consoleTabs(p, 'health')}
    <p class="muted">${t.checkedAt}: ${formatDateTime(h.at, p.lang)}</p>
    <section class="card" aria-labelledby="h-queue">
      <h2 id="h-queue">${t.queue}</h2>
      <dl class="grid stat">
        <div>
          <dt>${t.pending}</dt>
          <dd>${capped(d.pending, d.cap, p.lang)}</dd>
        </div>
        <div>
          <dt>${t.failing}</dt>
          <dd>${capped(d.failing, d.cap, p.lang)}</dd>
        </div>
        <div>
          <dt>${t.dead}</dt>
          <dd>${capped(d.dead, d.cap, p.lang)}</dd>
        </div>
        <div>
          <dt>${t.oldestDue}</dt>
          <dd>
            ${
              d.oldestDueAt === null
                ? t.nothingDue
                : t.waiting(formatAge(h.at.getTime() - d.oldestDueAt.getTime(), p.lang))
            }
          </dd>
        </div>
      </dl>
      <p class="muted">${t.capped(count(d.cap, p.lang), count(d.window, p.lang))}</p>
      <h3>${t.failingEndpoints}</h3>
      ${
        d.failingEndpoints.length === 0
          ? html`<p>${t.noFailing}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.url}</th>
                    <th scope="col">${t.merchant}</th>
                    <th scope="col" class="num">${t.failing}</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.failingEndpoints.map(
                    (e) =>
                      html`<tr>
                        <td><code>${endpointText(e.url)}</code></td>
                        <td>
                          <a href="${href(p, `/dashboard/console/merchants/${e.merchantId}`)}"
                            >${o.names.get(e.merchantId) ?? e.merchantId}</a
                          >
                        </td>
                        <td class="num">${count(e.failing, p.lang)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section class="card" aria-labelledby="h-providers">
      <h2 id="h-providers">${t.providers}</h2>
      <p class="muted">${t.providersIntro}</p>
      ${
        o.providers.length === 0
          ? html`<p>${t.noProviders}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.provider}</th>
                    <th scope="col">${t.lastAccepted}</th>
                    <th scope="col" class="num">${t.accepted}</th>
                    <th scope="col" class="num">${t.refused}</th>
                    <th scope="col" class="num">${t.unknown}</th>
                  </tr>
                </thead>
                <tbody>
                  ${o.providers.map(
                    (s) =>
                      html`<tr>
                        <th scope="row"><code>${s.provider}</code></th>
                        <td>
                          ${
                            s.lastAcceptedAt === null
                              ? t.never
                              : html`${formatDateTime(s.lastAcceptedAt, p.lang)}
                                  <small class="muted"
                                    >(${formatAge(h.at.getTime() - s.lastAcceptedAt.getTime(), p.lang)})</small
                                  >`
                          }
                        </td>
                        <td class="num">${count(s.accepted, p.lang)}</td>
                        <td class="num">${count(s.refused, p.lang)}</td>
                        <td class="num">${count(s.unknown, p.lang)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section class="card" aria-labelledby="h-reconcile">
      <h2 id="h-reconcile">${t.reconciliation}</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <td></td>
              <th scope="col" class="num">${t.due}</th>
              <th scope="col">${t.lag}</th>
            </tr>
          </thead>
          <tbody>
            ${lagRow(p, t.payments, h.attempts, h.at)} ${lagRow(p, t.refundChecks, h.refunds, h.at)}
          </tbody>
        </table>
      </div>
    </section>`
}
