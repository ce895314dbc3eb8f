/** The closed list of machine-readable error codes (docs/api.md#errors). */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  ambiguous_identifier: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  unauthenticated: 401,
  merchant_mismatch: 403,
  merchant_disabled: 403,
  csrf_failed: 403,
  forbidden: 403,
  invoice_not_found: 404,
  not_found: 404,
  order_id_conflict: 409,
  invalid_transition: 409,
  refund_exceeds_amount: 409,
  refund_unsupported: 409,
  idempotency_key_reuse: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  provider_error: 502,
  unavailable: 503,
  provider_unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export interface FieldError {
  readonly field: string
  readonly message: string
}

/** The one error type of the service; `http/plugins/problem-json.ts` maps it to a response. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly errors?: readonly FieldError[],
  ) {
    super(detail)
    this.name = 'AppError'
  }

  get status(): number {
    return ERROR_STATUS[this.code]
  }
}

/** A validation failure naming one or more fields; the detail lists them for people. */
export function validationFailed(errors: readonly FieldError[]): AppError {
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ')
  return new AppError('validation_failed', detail, errors)
}

/** `word` after its indefinite article, for messages: "an expired", "a pending", "an unspecified", "a unique-local". */
export function withArticle(word: string): string {
  return `${/^(?:[aeio]|u(?!ni|s[eu]))/i.test(word) ? 'an' : 'a'} ${word}`
}
