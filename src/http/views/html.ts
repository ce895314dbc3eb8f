/**
 * A tiny safe-by-default HTML builder for the payment page. Every interpolated value is escaped unless it is
 * already `SafeHtml` (built by this tag), so merchant-supplied text (comment, name, URLs) can never become markup.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escapes text for an HTML text node or a quoted attribute value (both quote kinds, so either quoting is safe). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)
}

export type HtmlValue = SafeHtml | string | number | false | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value === false || value === null || value === undefined) return ''
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** Tagged template: `html\`<p>${text}</p>\``. `false`/`null`/`undefined` render as nothing, for conditionals. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? ''
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '')
  })
  return new SafeHtml(out)
}

/**
 * An href for a merchant-supplied URL, or undefined when it is not plain http(s). The URLs are validated when the
 * invoice is created (docs/api.md#create-an-invoice); this is defence in depth against `javascript:` ever reaching an attribute.
 */
export function safeHref(url: string | null): string | undefined {
  if (url === null) return undefined
  try {
    const u = new URL(url)
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined
  } catch {
    return undefined
  }
}
