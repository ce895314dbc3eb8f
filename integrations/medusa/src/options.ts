/**
 * The provider's options, as given in medusa-config (see the README's "Configure"). Checked when Medusa loads the
 * module, so a wrong key or URL stops the start with a message naming the option instead of failing at checkout.
 */
export interface InvoiceServiceOptions {
  /** The service's PUBLIC_URL, e.g. `https://pay.example.com`. */
  apiUrl: string
  /** The merchant API key, `mk_…` (`invoice-service merchant create` prints it). */
  apiKey: string
  /** The merchant's webhook secret, `whsec_…`; during a rotation, both the new and the old one. */
  webhookSecret: string | string[]
  /** Where the service sends its events: this Medusa's `{backend URL}/hooks/payment/invoice-service_{id}`. */
  webhookUrl: string
  /** The service's payment service for the invoices (`card`, `sbp`, …); default: the merchant's default. */
  service?: string
  /** Invoice lifetime in seconds (the service's bounds apply); default: the service's. */
  lifetime?: number
}

const API_KEY = /^mk_[A-Za-z0-9_-]{43}$/
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=]+$/

/** Whether `value` is a usable absolute http(s) URL; a problem naming the option otherwise. */
function checkUrl(name: string, value: unknown, problems: string[]): boolean {
  if (typeof value !== 'string' || value === '') {
    problems.push(`\`${name}\` is missing: an absolute http(s) URL`)
    return false
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    problems.push(`\`${name}\` is not a URL: ${JSON.stringify(value)}`)
    return false
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push(`\`${name}\` must be an http(s) URL, got ${url.protocol}`)
    return false
  }
  if (url.username !== '' || url.password !== '') {
    problems.push(`\`${name}\` must not carry credentials`)
    return false
  }
  return true
}

/** Every problem with `options`, one line each; empty when they are usable. Never echoes a secret. */
export function optionProblems(options: Record<string, unknown>): string[] {
  const problems: string[] = []
  if (
    checkUrl('apiUrl', options['apiUrl'], problems) &&
    /\/api(\/|$)/.test(new URL(options['apiUrl'] as string).pathname)
  )
    problems.push('`apiUrl` is the service\'s base URL (its PUBLIC_URL), without "/api/…"')
  checkUrl('webhookUrl', options['webhookUrl'], problems)
  const key = options['apiKey']
  if (typeof key !== 'string' || key === '') problems.push('`apiKey` is missing: the merchant API key, mk_…')
  else if (!API_KEY.test(key))
    problems.push('`apiKey` is not a merchant API key: expected mk_ followed by 43 base64url characters')
  const secrets = Array.isArray(options['webhookSecret']) ? options['webhookSecret'] : [options['webhookSecret']]
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === ''))
    problems.push('`webhookSecret` is missing: the merchant webhook secret, whsec_…')
  else if (secrets.some((s) => !WEBHOOK_SECRET.test(s as string)))
    problems.push('`webhookSecret` is not a webhook secret: expected whsec_ followed by base64')
  const service = options['service']
  if (service !== undefined && (typeof service !== 'string' || service === ''))
    problems.push('`service` must be the name of one of the service\'s payment services, e.g. "card"')
  const lifetime = options['lifetime']
  if (lifetime !== undefined && (typeof lifetime !== 'number' || !Number.isInteger(lifetime) || lifetime <= 0))
    problems.push('`lifetime` must be a whole number of seconds')
  return problems
}
