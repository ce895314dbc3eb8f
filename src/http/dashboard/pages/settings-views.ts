/** The settings page (docs/dashboard.md#settings): the payment page's name and the default service. */
import type { Merchant } from '../../../domain/merchant.js'
import { html, type SafeHtml } from '../../views/html.js'
import { csrfField } from '../shell.js'
import { SETTINGS_STRINGS } from '../strings/settings.js'
import type { Page } from '../views.js'

export interface SettingsView {
  readonly merchant: Merchant
  readonly services: readonly string[]
  /** null for a viewer: the fields are shown read-only. */
  readonly csrf: string | null
  readonly saved?: boolean
}

export function settingsContent(p: Page, v: SettingsView): SafeHtml {
  const t = SETTINGS_STRINGS[p.lang]
  const off = v.csrf === null && html`disabled`
  return html`${v.saved === true && html`<p class="notice" role="status">${t.saved}</p>`}
    <section class="card" aria-labelledby="shop">
      <h2 id="shop">${t.shop}</h2>
      ${v.csrf === null && html`<p class="muted">${t.viewerNote}</p>`}
      <form
        class="stack"
        method="post"
        action="${p.base}/dashboard/settings${p.langChosen === true ? `?lang=${p.lang}` : ''}"
      >
        ${v.csrf !== null && csrfField(v.csrf)}
        <p>
          <label for="name">${t.name}</label>
          <input
            id="name"
            name="name"
            type="text"
            required
            maxlength="200"
            value="${v.merchant.name}"
            aria-describedby="name-help"
            ${off}
          />
          <br /><small id="name-help" class="muted">${t.nameHelp}</small>
        </p>
        <p>
          <label for="default_service">${t.service}</label>
          <select id="default_service" name="default_service" aria-describedby="service-help" ${off}>
            ${v.services.map(
              (s) => html`<option value="${s}" ${s === v.merchant.defaultService && html`selected`}>${s}</option>`,
            )}
          </select>
          <br /><small id="service-help" class="muted">${t.serviceHelp}</small>
        </p>
        ${v.csrf !== null && html`<button class="btn btn-primary" type="submit">${t.save}</button>`}
      </form>
    </section>`
}
