/** The team page (docs/dashboard.md#team): the merchant's users, invitations, roles and removal. */
import type { TeamMember } from '../../../app/list-team.js'
import type { IssuedLink } from '../../../app/user-records.js'
import { MERCHANT_ROLES } from '../../../domain/user.js'
import { html, type SafeHtml } from '../../views/html.js'
import { csrfField } from '../shell.js'
import { TEAM_STRINGS } from '../strings/team.js'
import type { Page } from '../views.js'
import { utcMinute } from './utc-time.js'

export interface TeamView {
  readonly members: readonly TeamMember[]
  readonly me: string
  /** null for a viewer: no forms. */
  readonly csrf: string | null
  /** Just invited: the link, shown once, as the CLI prints it. */
  readonly invited?: IssuedLink
}

const action = (p: Page, path: string) =>
  `${p.base}/dashboard/team${path}${p.langChosen === true ? `?lang=${p.lang}` : ''}`

const roleSelect = (p: Page, id: string, label: SafeHtml, selected: string) => {
  const t = TEAM_STRINGS[p.lang]
  return html`<label for="${id}" class="sr-only">${label}</label>
    <select id="${id}" name="role">
      ${MERCHANT_ROLES.map(
        (r) =>
          html`<option value="${r}" ${r === selected && html`selected`}>${t.roles[r as 'owner' | 'viewer']}</option>`,
      )}
    </select>`
}

function row(p: Page, m: TeamMember, v: TeamView, i: number): SafeHtml {
  const t = TEAM_STRINGS[p.lang]
  const u = m.user
  return html`<tr>
    <td>${u.email}${u.id === v.me && html` <span class="muted">(${t.you})</span>`}</td>
    <td>${t.roles[u.role as 'owner' | 'viewer']}</td>
    <td>${u.totpEnabledAt === null ? t.off : t.on}</td>
    <td>${m.lastSignInAt === null ? html`<span class="muted">${t.never}</span>` : utcMinute(m.lastSignInAt)}</td>
    ${
      v.csrf !== null &&
      html`<td>
        <div class="actions">
          <form method="post" action="${action(p, `/${u.id}/role`)}" class="actions">
            ${csrfField(v.csrf)} ${roleSelect(p, `role-${i}`, html`${t.newRoleOf} ${u.email}`, u.role)}
            <button class="btn btn-secondary btn-small" type="submit">${t.changeRole}</button>
          </form>
          <form method="post" action="${action(p, `/${u.id}/remove`)}">
            ${csrfField(v.csrf)}
            <button class="btn btn-danger btn-small" type="submit" aria-label="${t.removeLabel} ${u.email}">
              ${t.remove}
            </button>
          </form>
        </div>
      </td>`
    }
  </tr>`
}

/** The link as `user invite` prints it (docs/dashboard.md#invitations). */
function invited(p: Page, link: IssuedLink): SafeHtml {
  const t = TEAM_STRINGS[p.lang]
  const u = link.user
  return html`<div class="secret card" role="status">
    <p>${t.invited}</p>
    <pre class="mono">
user:    ${u.email} (${u.role} of merchant ${u.merchantId ?? ''})
link:    ${link.url}
expires: ${link.expiresAt.toISOString()}</pre>
  </div>`
}

export function teamContent(p: Page, v: TeamView): SafeHtml {
  const t = TEAM_STRINGS[p.lang]
  return html`${v.invited !== undefined && invited(p, v.invited)}
    <section class="card" aria-labelledby="users">
      <h2 id="users">${t.users}</h2>
      <p class="muted">${t.roleHelp}</p>
      <div class="scroll">
        <table>
          <caption class="sr-only">
            ${t.users}
          </caption>
          <thead>
            <tr>
              <th scope="col">${t.email}</th>
              <th scope="col">${t.role}</th>
              <th scope="col">${t.twoFactor}</th>
              <th scope="col">${t.lastSignIn}</th>
              ${v.csrf !== null && html`<th scope="col">${t.actions}</th>`}
            </tr>
          </thead>
          <tbody>
            ${v.members.map((m, i) => row(p, m, v, i))}
          </tbody>
        </table>
      </div>
    </section>
    <section class="card" aria-labelledby="invite">
      <h2 id="invite">${t.invite}</h2>
      ${
        v.csrf === null
          ? html`<p class="muted">${t.viewerNote}</p>`
          : html`<p>${t.inviteIntro}</p>
              <form class="filters" method="post" action="${action(p, '')}">
                ${csrfField(v.csrf)}
                <p>
                  <label for="email">${t.email}</label>
                  <input id="email" name="email" type="email" required autocomplete="off" />
                </p>
                <p>
                  <label for="invite-role">${t.role}</label>
                  <select id="invite-role" name="role">
                    ${MERCHANT_ROLES.map((r) => html`<option value="${r}">${t.roles[r as 'owner' | 'viewer']}</option>`)}
                  </select>
                </p>
                <p><button class="btn btn-primary" type="submit">${t.inviteButton}</button></p>
              </form>`
      }
    </section>`
}
