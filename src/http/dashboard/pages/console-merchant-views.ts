/** The console's merchant pages (docs/dashboard.md#operator-console): the list with the create form, and one merchant. */
import type { MerchantDetails } from '../../../app/get-merchant-details.js'
import type { ServiceRules } from '../../../domain/catalog.js'
import type { Merchant } from '../../../domain/merchant.js'
import type { MerchantSummary } from '../../../ports/console-store.js'
import { formatDateTime } from '../../views/format.js'
import { html, type SafeHtml } from '../../views/html.js'
import { csrfField, href } from '../shell.js'
import { CONSOLE_STRINGS } from '../strings/console.js'
import type { Page } from '../views.js'
import { consoleTabs, count, error, feeText, invoicesTable, merchantBadge, notice } from './console-views.js'

function feesTable(p: Page, services: readonly ServiceRules[], defaultService?: string): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  return html`<div class="scroll">
    <table>
      <caption class="sr-only">
        ${t.fees}
      </caption>
      <thead>
        <tr>
          <th scope="col">${t.service}</th>
          <th scope="col">${t.fee}</th>
          <th scope="col">${t.currencies}</th>
        </tr>
      </thead>
      <tbody>
        ${services.map(
          (s) =>
            html`<tr>
              <td>
                <code>${s.name}</code
                >${s.name === defaultService && html` <span class="badge">${t.defaultService}</span>`}
              </td>
              <td>${feeText(s, t.noFee)}</td>
              <td>${s.currencies === undefined ? t.anyCurrency : s.currencies.join(', ')}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`
}

function statusForm(p: Page, m: Merchant, csrf: string, from: 'list' | 'merchant'): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  const action = m.status === 'active' ? 'disable' : 'enable'
  return html`<form class="inline" method="post" action="${href(p, `/dashboard/console/merchants/${m.id}/${action}`)}">
    ${csrfField(csrf)}<input type="hidden" name="from" value="${from}" />
    <button class="btn ${action === 'disable' ? 'btn-danger' : 'btn-secondary'}" type="submit">
      ${t[action]}<span class="sr-only"> ${m.name}</span>
    </button>
  </form>`
}

export interface CreatedSecrets {
  readonly merchant: Merchant
  readonly apiKey: string
  readonly webhookSecret: string
}

export function merchantsContent(
  p: Page,
  o: {
    merchants: readonly MerchantSummary[]
    services: readonly ServiceRules[]
    csrf: string
    created?: CreatedSecrets
    notice?: string
    error?: string
    name?: string
  },
): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  const c = o.created
  return html`${consoleTabs(p, 'merchants')} ${notice(o.notice)}
    ${
      c !== undefined &&
      html`<section class="card secret" aria-labelledby="h-created">
        <h2 id="h-created">${c.merchant.name}</h2>
        <p role="status">${t.createdMerchant}</p>
        <dl class="fields">
          <dt>${t.merchantId}</dt>
          <dd><code>${c.merchant.id}</code></dd>
          <dt>${t.apiKey}</dt>
          <dd><code>${c.apiKey}</code></dd>
          <dt>${t.webhookSecret}</dt>
          <dd><code>${c.webhookSecret}</code></dd>
        </dl>
        <p><a href="${href(p, `/dashboard/console/merchants/${c.merchant.id}`)}">${t.open}: ${c.merchant.name}</a></p>
      </section>`
    }
    <section class="card" aria-labelledby="h-list">
      <h2 id="h-list">${t.merchants}</h2>
      ${
        o.merchants.length === 0
          ? html`<p>${t.noMerchants}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.name}</th>
                    <th scope="col">${t.status}</th>
                    <th scope="col">${t.created}</th>
                    <th scope="col" class="num">${t.keys}</th>
                    <th scope="col" class="num">${t.users}</th>
                    <th scope="col">${t.defaultService}</th>
                    <th scope="col">${t.actions}</th>
                  </tr>
                </thead>
                <tbody>
                  ${o.merchants.map(
                    (s) =>
                      html`<tr>
                        <td>
                          <a href="${href(p, `/dashboard/console/merchants/${s.merchant.id}`)}">${s.merchant.name}</a>
                        </td>
                        <td>${merchantBadge(s.merchant, p.lang)}</td>
                        <td>${formatDateTime(s.merchant.createdAt, p.lang)}</td>
                        <td class="num">${count(s.activeKeys, p.lang)}</td>
                        <td class="num">${count(s.users, p.lang)}</td>
                        <td><code>${s.merchant.defaultService}</code></td>
                        <td>${statusForm(p, s.merchant, o.csrf, 'list')}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section class="card" aria-labelledby="h-create">
      <h2 id="h-create">${t.createMerchant}</h2>
      ${error(o.error)}
      <form class="filters" method="post" action="${href(p, '/dashboard/console/merchants')}">
        ${csrfField(o.csrf)}
        <p>
          <label for="name">${t.name}</label>
          <input id="name" name="name" type="text" maxlength="200" required value="${o.name ?? ''}" />
        </p>
        <p>
          <label for="default_service">${t.defaultService}</label>
          <select id="default_service" name="default_service">
            ${o.services.map((s) => html`<option value="${s.name}">${s.name}</option>`)}
          </select>
        </p>
        <button class="btn btn-primary" type="submit">${t.create}</button>
      </form>
    </section>
    <section class="card" aria-labelledby="h-fees">
      <h2 id="h-fees">${t.fees}</h2>
      <p class="muted">${t.feesIntro}</p>
      ${feesTable(p, o.services)}
    </section>`
}

export function merchantContent(
  p: Page,
  d: MerchantDetails,
  o: { csrf: string; now: Date; notice?: string; invited?: string; error?: string },
): SafeHtml {
  const t = CONSOLE_STRINGS[p.lang]
  const m = d.merchant
  return html`${consoleTabs(p, 'merchants')} ${notice(o.notice)}
    <section class="card" aria-labelledby="h-merchant">
      <h2 id="h-merchant">${t.merchant}</h2>
      <dl class="fields">
        <dt>${t.merchantId}</dt>
        <dd><code>${m.id}</code></dd>
        <dt>${t.status}</dt>
        <dd>${merchantBadge(m, p.lang)} ${statusForm(p, m, o.csrf, 'merchant')}</dd>
        <dt>${t.created}</dt>
        <dd>${formatDateTime(m.createdAt, p.lang)}</dd>
        <dt>${t.defaultService}</dt>
        <dd><code>${m.defaultService}</code></dd>
      </dl>
    </section>
    <section class="card" aria-labelledby="h-fees">
      <h2 id="h-fees">${t.fees}</h2>
      <p class="muted">${t.feesIntro}</p>
      ${feesTable(p, d.services, m.defaultService)}
    </section>
    <section class="card" aria-labelledby="h-keys">
      <h2 id="h-keys">${t.apiKeys}</h2>
      ${
        d.keys.length === 0
          ? html`<p>${t.noKeys}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.prefix}</th>
                    <th scope="col">${t.created}</th>
                    <th scope="col">${t.revoked}</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.keys.map(
                    (k) =>
                      html`<tr>
                        <td><code>${k.prefix}…</code></td>
                        <td>${formatDateTime(k.createdAt, p.lang)}</td>
                        <td>${k.revokedAt === null ? t.notRevoked : formatDateTime(k.revokedAt, p.lang)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section class="card" aria-labelledby="h-users">
      <h2 id="h-users">${t.users}</h2>
      ${
        o.invited !== undefined &&
        html`<div class="secret" role="status">
          <p>${t.invited}</p>
          <p><code>${o.invited}</code></p>
        </div>`
      }
      ${
        d.users.length === 0
          ? html`<p>${t.noUsers}</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${t.email}</th>
                    <th scope="col">${t.role}</th>
                    <th scope="col">${t.twoFactor}</th>
                    <th scope="col">${t.created}</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.users.map(
                    (u) =>
                      html`<tr>
                        <td>${u.email}</td>
                        <td>${t.roles[u.role] ?? u.role}</td>
                        <td>${u.totpEnabledAt === null ? t.off : t.on}</td>
                        <td>${formatDateTime(u.createdAt, p.lang)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <h3>${t.inviteUser}</h3>
      ${error(o.error)}
      <form class="filters" method="post" action="${href(p, `/dashboard/console/merchants/${m.id}/users`)}">
        ${csrfField(o.csrf)}
        <p>
          <label for="email">${t.email}</label>
          <input id="email" name="email" type="email" required autocomplete="off" />
        </p>
        <p>
          <label for="role">${t.role}</label>
          <select id="role" name="role">
            <option value="owner">${t.roles.owner}</option>
            <option value="viewer">${t.roles.viewer}</option>
          </select>
        </p>
        <button class="btn btn-primary" type="submit">${t.invite}</button>
      </form>
    </section>
    <section class="card" aria-labelledby="h-recent">
      <h2 id="h-recent">${t.recentInvoices}</h2>
      ${d.invoices.length === 0 ? html`<p>${t.noInvoices}</p>` : invoicesTable(p, d.invoices, o.now)}
    </section>`
}
