import type { FieldError, Problem, ProblemCode } from './types.js'

/**
 * `code` of an InvoiceServiceError: one of the API's problem codes, or, when there was no problem document,
 * `network_error` (no answer: refused, reset, timed out) or `unexpected_response` (an answer that is not one, e.g.
 * a proxy's HTML 502).
 */
export type InvoiceServiceErrorCode = ProblemCode | 'network_error' | 'unexpected_response'

/** Every failed call of the client throws this: the API's problem details, typed. */
export class InvoiceServiceError extends Error {
  override readonly name = 'InvoiceServiceError'
  /** The HTTP status; 0 when there was no answer. */
  readonly status: number
  readonly code: InvoiceServiceErrorCode
  /** For people: what went wrong. */
  readonly detail: string
  /** The invalid fields, for `validation_failed`. */
  readonly errors: readonly FieldError[]
  /** The x-request-id of the answer: quote it to the operator for a 500. */
  readonly requestId: string | undefined
  /** Seconds to wait before retrying, from Retry-After (429, 503). */
  readonly retryAfter: number | undefined
  /** The problem document as the service sent it, when it sent one. */
  readonly problem: Problem | undefined

  constructor(init: {
    status: number
    code: InvoiceServiceErrorCode
    detail: string
    errors?: readonly FieldError[] | undefined
    requestId?: string | undefined
    retryAfter?: number | undefined
    problem?: Problem | undefined
    cause?: unknown
  }) {
    super(`${init.code}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause })
    this.status = init.status
    this.code = init.code
    this.detail = init.detail
    this.errors = init.errors ?? []
    this.requestId = init.requestId
    this.retryAfter = init.retryAfter
    this.problem = init.problem
  }
}

/** Whether `err` is an InvoiceServiceError, optionally with one of the given codes. */
export function isInvoiceServiceError(err: unknown, ...codes: InvoiceServiceErrorCode[]): err is InvoiceServiceError {
  return err instanceof InvoiceServiceError && (codes.length === 0 || codes.includes(err.code))
}

const isProblem = (body: unknown): body is Problem =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as Problem).code === 'string' &&
  typeof (body as Problem).status === 'number'

/** The error of a non-2xx answer: its problem document when it is one. */
export function errorOf(response: Response, body: unknown): InvoiceServiceError {
  const requestId = response.headers.get('x-request-id') ?? undefined
  const retryAfterText = response.headers.get('retry-after')
  const retryAfter = retryAfterText === null ? undefined : retryAfterSeconds(retryAfterText)
  if (isProblem(body)) {
    return new InvoiceServiceError({
      status: response.status,
      code: body.code,
      detail: body.detail,
      errors: body.errors,
      requestId,
      retryAfter,
      problem: body,
    })
  }
  const text = typeof body === 'string' ? body.slice(0, 200) : ''
  return new InvoiceServiceError({
    status: response.status,
    code: 'unexpected_response',
    detail: `HTTP ${response.status} without a problem document${text === '' ? '' : `: ${text}`}`,
    requestId,
    retryAfter,
  })
}

/**
 * Retry-After in seconds (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date (as a proxy in front of the service may
 * send) counted from now, never below 0; undefined when it is neither.
 */
export function retryAfterSeconds(text: string, now: number = Date.now()): number | undefined {
  const value = text.trim()
  if (/^\d+$/.test(value)) return Number(value)
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return undefined
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}
