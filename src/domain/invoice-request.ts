import { amountBounds, enabledExponent, findService, supportsCurrency, type Catalog } from './catalog.js'
import { withArticle, type FieldError } from './errors.js'
import { formatAmount, numberText, parseAmount, parseAmountInput, type Minor } from './money.js'
import { classifyHost, isPublic } from './network-address.js'

/** A create request after the wire schema checked types and lengths (docs/api.md#create-an-invoice). */
export interface CreateInvoiceInput {
  readonly orderId: string
  readonly amount: number | string
  /** A JSON number `amount` as the client wrote it ("100.50", "1e2"): checked instead of the double it became. */
  readonly amountText?: string | undefined
  readonly currency: string
  readonly comment?: string | undefined
  readonly service?: string | undefined
  readonly callbackUrl?: string | undefined
  readonly successUrl?: string | undefined
  readonly failUrl?: string | undefined
  readonly lifetime?: number | undefined
}

export interface RequestRules {
  readonly catalog: Catalog
  readonly defaultService: string
  readonly callbackAllowHttp: boolean
  /** WEBHOOK_ALLOW_PRIVATE: a callback_url may name a loopback, private or other non-public host. */
  readonly webhookAllowPrivate: boolean
  readonly lifetime: { readonly default: number; readonly min: number; readonly max: number }
}

export interface ValidCreateRequest {
  readonly orderId: string
  readonly amount: Minor
  readonly currency: string
  readonly exponent: number
  readonly comment: string | null
  readonly service: string
  readonly callbackUrl: string | null
  readonly successUrl: string | null
  readonly failUrl: string | null
  readonly lifetimeSeconds: number
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
/**
 * Half of a UTF-16 surrogate pair on its own (JSON's "\ud800"): not a character, so not Unicode text. Stored, it
 * becomes invalid UTF-8 in SQLite and U+FFFD in PostgreSQL; the order could no longer be found by its order_id.
 */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * Every semantic rule of docs/api.md#create-an-invoice that a JSON schema cannot express; all failures are collected so the
 * merchant sees each bad field at once.
 */
export function validateCreateRequest(
  input: CreateInvoiceInput,
  rules: RequestRules,
): { ok: true; value: ValidCreateRequest } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = []
  const fail = (field: string, message: string): void => {
    errors.push({ field, message })
  }

  // Lengths count characters (code points), as the JSON schema does.
  const orderIdLength = [...input.orderId].length
  if (orderIdLength === 0 || orderIdLength > 128) fail('order_id', 'must be 1 to 128 characters')
  else if (CONTROL.test(input.orderId)) fail('order_id', 'must not contain control characters')
  else if (LONE_SURROGATE.test(input.orderId))
    fail('order_id', 'must be Unicode text: it holds half of a surrogate pair')

  const currency = /^[A-Za-z]{3}$/.test(input.currency) ? input.currency.toUpperCase() : ''
  const exponent = enabledExponent(rules.catalog, currency)
  if (exponent === undefined)
    fail('currency', `must be one of the enabled currencies: ${rules.catalog.currencies.join(', ')}`)

  const serviceName = input.service ?? rules.defaultService
  const service = findService(rules.catalog, serviceName)
  if (service === undefined) {
    const which =
      input.service === undefined ? `the merchant's default service "${serviceName}" is not available; ` : ''
    fail('service', `${which}must be one of: ${rules.catalog.services.map((s) => s.name).join(', ')}`)
  } else if (exponent !== undefined && !supportsCurrency(service, currency)) {
    fail('currency', `${currency} is not supported by service ${service.name}`)
  }

  let amount: Minor | undefined
  // A number is checked as written when its text is known: a double cannot tell 100.5 from 100.500 or from
  // 100.50000000000000001, and the decimal places the client sent are what docs/api.md#create-an-invoice limits.
  const text = typeof input.amount === 'number' ? (input.amountText ?? numberText(input.amount)) : input.amount
  if (text === undefined || (typeof input.amount === 'number' && (input.amount < 0 || !/^[0-9.]+$/.test(text)))) {
    fail('amount', 'must be a positive decimal number without exponent')
  } else if (exponent === undefined) {
    // the currency is wrong, but a malformed amount is still worth reporting in the same answer
    const shape = parseAmount(text, 20)
    if (!shape.ok && shape.reason === 'format')
      fail('amount', 'must be a positive decimal number such as 100 or "100.50" (no sign, spaces or exponent)')
  } else {
    const parsed = parseAmountInput(input.amount, text, exponent, currency)
    if (!parsed.ok) {
      fail('amount', parsed.message)
    } else if (service !== undefined) {
      const { min, max } = amountBounds(service, exponent)
      if (parsed.minor < min || parsed.minor > max) {
        fail(
          'amount',
          `must be between ${formatAmount(min, exponent)} and ${formatAmount(max, exponent)} ${currency} for service ${service.name}`,
        )
      } else {
        amount = parsed.minor
      }
    }
  }

  // U+0000 is no text: PostgreSQL cannot store it, and no shop means it.
  if (input.comment?.includes('\u0000') === true) fail('comment', 'must not contain the NUL character')
  else if (input.comment !== undefined && [...input.comment].length > 1024)
    fail('comment', 'must be at most 1024 characters')
  else if (input.comment !== undefined && LONE_SURROGATE.test(input.comment))
    fail('comment', 'must be Unicode text: it holds half of a surrogate pair')

  const callbackUrl = checkUrl(
    'callback_url',
    input.callbackUrl,
    rules.callbackAllowHttp ? ['https:', 'http:'] : ['https:'],
    fail,
    !rules.webhookAllowPrivate,
  )
  const successUrl = checkUrl('success_url', input.successUrl, ['https:', 'http:'], fail)
  const failUrl = checkUrl('fail_url', input.failUrl, ['https:', 'http:'], fail)

  const lifetime = input.lifetime ?? rules.lifetime.default
  if (!Number.isInteger(lifetime) || lifetime < rules.lifetime.min || lifetime > rules.lifetime.max) {
    fail('lifetime', `must be a whole number of seconds from ${rules.lifetime.min} to ${rules.lifetime.max}`)
  }

  if (errors.length > 0 || amount === undefined || exponent === undefined || service === undefined) {
    return { ok: false, errors }
  }
  return {
    ok: true,
    value: {
      orderId: input.orderId,
      amount,
      currency,
      exponent,
      comment: input.comment ?? null,
      service: service.name,
      callbackUrl,
      successUrl,
      failUrl,
      lifetimeSeconds: lifetime,
    },
  }
}

export interface CallbackUrlRules {
  readonly callbackAllowHttp: boolean
  readonly webhookAllowPrivate: boolean
}

/**
 * A webhook target (callback_url, or the url of a test webhook): what is wrong with it, or undefined when it
 * may be used. The literal host is judged here; a name is judged again on its resolved address at connection time.
 */
export function callbackUrlProblem(value: string, rules: CallbackUrlRules): string | undefined {
  let problem: string | undefined
  checkUrl(
    'url',
    value,
    rules.callbackAllowHttp ? ['https:', 'http:'] : ['https:'],
    (_f, message) => (problem ??= message),
    !rules.webhookAllowPrivate,
  )
  return problem
}

function checkUrl(
  field: string,
  value: string | undefined,
  schemes: readonly string[],
  fail: (field: string, message: string) => void,
  publicHostOnly = false,
): string | null {
  if (value === undefined) return null
  const allowed = schemes.map((s) => s.slice(0, -1)).join(' or ')
  if ([...value].length > 2048) {
    fail(field, 'must be at most 2048 characters')
    return null
  }
  let url: URL
  // The URL parser forgives surrounding spaces and control characters; a stored URL must be exactly what is used.
  if (value.trim() !== value || CONTROL.test(value)) {
    fail(field, `must be an absolute ${allowed} URL without spaces or control characters`)
    return null
  }
  try {
    url = new URL(value)
  } catch {
    fail(field, `must be an absolute ${allowed} URL`)
    return null
  }
  if (!schemes.includes(url.protocol)) {
    fail(field, `must be an absolute ${allowed} URL`)
    return null
  }
  if (url.hostname === '') {
    fail(field, 'must name a host')
    return null
  }
  // docs/webhooks.md#addresses: no webhooks to loopback, private or other non-public hosts. The WHATWG parser has already turned
  // odd IPv4 spellings (2130706433, 0x7f000001, 127.1, 0177.0.0.1) into dotted form; classifyHost accepts both.
  const cls = publicHostOnly ? classifyHost(url.hostname) : undefined
  if (cls !== undefined && !isPublic(cls)) {
    fail(field, `must not point to ${withArticle(cls)} address (${url.hostname}); only public hosts receive webhooks`)
    return null
  }
  return value
}
