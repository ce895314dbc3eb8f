/** The API keys page (docs/dashboard.md#api-keys): the merchant's keys, a new key shown once, revocation. */
import type { ApiKeyRecord } from '../../../domain/merchant.js'
import { html, type SafeHtml } from '../../views/html.js'
import { csrfField } from '../shell.js'
import { API_KEY_STRINGS } from '../strings/api-keys.js'
import type { Page } from '../views.js'
import { utcMinute } from './utc-time.js'

export interface ApiKeysView {
  readonly keys: readonly ApiKeyRecord[]
  /** null for a viewer: no forms. */
  readonly csrf: string | null
  /** Just created: the key itself, shown once. */
  readonly newKey?: string
  readonly revoked?: boolean
}

const action = (p: Page, path: string) =>
  `${p.base}/dashboard/api-keys${path}${p.langChosen === true ? `?lang=${p.lang}` : ''}`

function row(p: Page, k: ApiKeyRecord, csrf: string | null): SafeHtml {
  const t = API_KEY_STRINGS[p.lang]
  const label = k.name ?? t.unnamed
  return html`<tr>
    <td>${k.name === null ? html`<span class="muted">${t.unnamed}</span>` : k.name}</td>
    <td><code>${k.prefix}…</code></td>
    <td>${utcMinute(k.createdAt)}</td>
    <td>${k.lastUsedAt === null ? html`<span class="muted">${t.never}</span>` : utcMinute(k.lastUsedAt)}</td>
    <td>
      ${
        k.revokedAt === null
          ? html`<span class="badge badge-paid">${t.active}</span>`
          : html`<span class="badge badge-failed">${t.revokedAt}</span> ${utcMinute(k.revokedAt)}`
      }
    </td>
    ${
      csrf !== null &&
      html`<td>
        ${
          k.revokedAt === null &&
          html`<form method="post" action="${action(p, `/${k.id}/revoke`)}">
            ${csrfField(csrf)}<button
              class="btn btn-danger btn-small"
              type="submit"
              aria-label="${t.revokeLabel} ${label} (${k.prefix}…)"
            >
              ${t.revoke}
            </button>
          </form>`
        }
      </td>`
    }
  </tr>`
}

export function apiKeysContent(p: Page, v: ApiKeysView): SafeHtml {
  const t = API_KEY_STRINGS[p.lang]
  return html`${
      v.newKey !== undefined &&
      html`<div class="secret card" role="status">
        <p>${t.newKey}</p>
        <p><code>${v.newKey}</code></p>
      </div>`
    }
    ${v.revoked === true && html`<p class="notice" role="status">${t.revoked}</p>`}
    <section class="card" aria-labelledby="keys">
      <h2 id="keys">${t.keys}</h2>
      <p>${t.intro}</p>
      ${
        v.keys.length === 0
          ? html`<p>${t.none}</p>`
          : html`<div class="scroll">
              <table>
                <caption class="sr-only">
                  ${t.keys}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">${t.name}</th>
                    <th scope="col">${t.prefix}</th>
                    <th scope="col">${t.created}</th>
                    <th scope="col">${t.lastUsed}</th>
                    <th scope="col">${t.status}</th>
                    ${v.csrf !== null && html`<th scope="col"><span class="sr-only">${t.revoke}</span></th>`}
                  </tr>
                </thead>
                <tbody>
                  ${v.keys.map((k) => row(p, k, v.csrf))}
                </tbody>
              </table>
            </div>`
      }
      <p class="muted">${t.lastUsedNote}</p>
    </section>
    <section class="card" aria-labelledby="create">
      <h2 id="create">${t.create}</h2>
      ${
        v.csrf === null
          ? html`<p class="muted">${t.viewerNote}</p>`
          : html`<form class="stack" method="post" action="${action(p, '')}">
              ${csrfField(v.csrf)}
              <p>
                <label for="name">${t.keyName}</label>
                <input id="name" name="name" type="text" required maxlength="100" autocomplete="off" />
              </p>
              <button class="btn btn-primary" type="submit">${t.createButton}</button>
            </form>`
      }
    </section>`
}
