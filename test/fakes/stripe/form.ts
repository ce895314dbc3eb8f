/**
 * Stripe's request encoding (https://docs.stripe.com/api: "accepts form-encoded request bodies"; expansion at
 * https://docs.stripe.com/api/expanding_objects): v1 bodies are `application/x-www-form-urlencoded` with nested keys in brackets, as the SDK writes them:
 * `line_items[0][price_data][currency]=usd`, `metadata[invoice_id]=…`, `expand[0]=payment_intent` (or `expand[]=…`).
 * GET parameters use the same encoding in the query string.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue }
export type FormObject = { [key: string]: FormValue }

export function parseStripeForm(text: string): FormObject {
  const root: FormObject = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
    if (m === null) throw new FormError(`Invalid parameter name: ${key}`)
    const path = [m[1] ?? '', ...[...(m[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1] ?? '')]
    assign(root, path, value)
  }
  return root
}

export class FormError extends Error {}

function assign(container: FormObject | FormValue[], path: readonly string[], value: string): void {
  const [head, ...rest] = path
  if (head === undefined) return
  const isArray = Array.isArray(container)
  const slot = (k: string): FormValue | undefined =>
    isArray ? (k === '' ? undefined : container[Number(k)]) : (container as FormObject)[k]
  const put = (k: string, v: FormValue): void => {
    if (isArray) {
      if (k === '') container.push(v)
      else container[Number(k)] = v
    } else (container as FormObject)[k] = v
  }
  if (isArray && head !== '' && !/^[0-9]+$/.test(head)) throw new FormError(`Invalid array index: ${head}`)
  if (rest.length === 0) {
    put(head, value)
    return
  }
  const nextIsIndex = rest[0] === '' || /^[0-9]+$/.test(rest[0] ?? '')
  let child = slot(head)
  if (child === undefined || typeof child === 'string') {
    child = nextIsIndex ? [] : {}
    put(head, child)
  }
  assign(child as FormObject | FormValue[], rest, value)
}

/** Key order does not matter to Stripe's idempotency check: the same parameters are the same request. */
export function canonical(value: FormValue | undefined): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'string') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
    .join(',')}}`
}
