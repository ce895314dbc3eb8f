/** The webhooks page (docs/dashboard.md#webhooks): the secret and its rotation, a test event, the delivery log. */
import type { TestWebhookResult } from '../../../app/send-test-webhook.js'
import type { DeliveryWithAttempts } from '../../../domain/delivery.js'
import { html, type SafeHtml } from '../../views/html.js'
import { csrfField, href } from '../shell.js'
import { WEBHOOK_STRINGS } from '../strings/webhooks.js'
import type { Page } from '../views.js'
import { utcMinute, utcSecond } from './utc-time.js'

export interface WebhooksView {
  readonly deliveries: readonly DeliveryWithAttempts[]
  readonly nextCursor: string | null
  /** This page is not the first one. */
  readonly paged: boolean
  readonly graceEnd: Date | null
  /** null for a viewer: no forms. */
  readonly csrf: string | null
  readonly testUrl: string
  readonly tested?: TestWebhookResult
  /** Just rotated: shown once. */
  readonly newSecret?: string
}

function row(p: Page, d: DeliveryWithAttempts): SafeHtml {
  const t = WEBHOOK_STRINGS[p.lang]
  const last = d.attempts[d.attempts.length - 1]
  return html`<tr>
    <td><a class="mono" href="${href(p, `/dashboard/invoices/${d.invoiceId}`)}">${d.invoiceId}</a></td>
    <td><code>${d.type}</code></td>
    <td><span class="badge badge-delivery-${d.status}">${t.statuses[d.status]}</span></td>
    <td class="num">${d.attempts.length}</td>
    <td class="num">${last === undefined ? '—' : (last.statusCode ?? t.noAnswer)}</td>
    <td>${utcSecond(d.createdAt)}</td>
  </tr>`
}

function log(p: Page, v: WebhooksView): SafeHtml {
  const t = WEBHOOK_STRINGS[p.lang]
  if (v.deliveries.length === 0 && !v.paged) return html`<p>${t.none}</p>`
  return html`<div class="scroll">
      <table>
        <caption class="sr-only">
          ${t.log}
        </caption>
        <thead>
          <tr>
            <th scope="col">${t.invoice}</th>
            <th scope="col">${t.type}</th>
            <th scope="col">${t.status}</th>
            <th scope="col" class="num">${t.attempts}</th>
            <th scope="col" class="num">${t.lastAnswer}</th>
            <th scope="col">${t.created}</th>
          </tr>
        </thead>
        <tbody>
          ${v.deliveries.map((d) => row(p, d))}
        </tbody>
      </table>
    </div>
    <nav class="pager" aria-label="${t.log}">
      ${v.paged && html`<a href="${href(p, '/dashboard/webhooks')}">${t.first}</a>`}
      ${v.nextCursor !== null && html`<a href="${href(p, '/dashboard/webhooks', { cursor: v.nextCursor })}">${t.next}</a>`}
    </nav>`
}

function tested(p: Page, r: TestWebhookResult): SafeHtml {
  const t = WEBHOOK_STRINGS[p.lang]
  return html`<p role="status" class="${r.error === null ? 'notice' : 'error'}">
    ${t.testResult}: <strong>${r.statusCode ?? t.noAnswer}</strong> ${t.latency} ${r.latencyMs}
    ms${r.error !== null && html`. ${t.error}: ${r.error}`}
  </p>`
}

export function webhooksContent(p: Page, v: WebhooksView): SafeHtml {
  const t = WEBHOOK_STRINGS[p.lang]
  const action = (path: string) =>
    `${p.base}/dashboard/webhooks/${path}${p.langChosen === true ? `?lang=${p.lang}` : ''}`
  return html`<div class="grid">
      <section class="card" aria-labelledby="secret">
        <h2 id="secret">${t.secret}</h2>
        ${
          v.newSecret !== undefined &&
          html`<div class="secret" role="status">
            <p>${t.newSecret}</p>
            <p><code>${v.newSecret}</code></p>
          </div>`
        }
        <p>${t.secretIntro}</p>
        <p>${v.graceEnd === null ? t.noGrace : html`${t.graceUntil} <strong>${utcMinute(v.graceEnd)}</strong>.`}</p>
        ${
          v.csrf !== null &&
          html`<form method="post" action="${action('rotate')}">
            ${csrfField(v.csrf)}<button class="btn btn-danger" type="submit">${t.rotate}</button>
          </form>`
        }
      </section>
      <section class="card" aria-labelledby="test">
        <h2 id="test">${t.test}</h2>
        <p>${t.testIntro}</p>
        ${v.tested !== undefined && tested(p, v.tested)}
        ${
          v.csrf === null
            ? html`<p class="muted">${t.viewerNote}</p>`
            : html`<form class="stack" method="post" action="${action('test')}">
                ${csrfField(v.csrf)}
                <p>
                  <label for="url">${t.url}</label>
                  <input id="url" name="url" type="url" required value="${v.testUrl}" />
                </p>
                <button class="btn btn-primary" type="submit">${t.send}</button>
              </form>`
        }
      </section>
    </div>
    <section class="card" aria-labelledby="log">
      <h2 id="log">${t.log}</h2>
      <p class="muted">${t.logIntro}</p>
      ${log(p, v)}
    </section>`
}
