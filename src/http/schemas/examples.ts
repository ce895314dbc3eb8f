import type { ErrorCode } from '../../domain/errors.js'
import { problemOf } from '../plugins/problem.js'

/**
 * Example values for the OpenAPI document (/openapi.json, /docs). They are documentation only — never used for
 * validation or serialization — and `npm run lint:openapi` checks each one against the schema it illustrates.
 */

const INVOICE_ID = '0193a1c2-7d4e-7c3a-9f10-5b2e8c4d1a01'
const MERCHANT_ID = '0193a0ff-1b2c-7e3d-8a4f-6c5d4e3f2a10'
const PAY_URL = `https://pay.shop.example/pay/${INVOICE_ID}`

export const EXAMPLE_IDS = {
  invoice: INVOICE_ID,
  merchant: MERCHANT_ID,
  delivery: '0193a1c3-0a1b-7c2d-8e3f-4a5b6c7d8e90',
  event: '0193a1c3-0a1b-7c2d-8e3f-4a5b6c7d8e91',
} as const

export const INVOICE_EXAMPLE = {
  id: INVOICE_ID,
  merchant_id: MERCHANT_ID,
  order_id: 'order-1001',
  amount: 100.5,
  currency: 'RUB',
  status: 'paid',
  service: 'card',
  url: PAY_URL,
  qr_data: PAY_URL,
  credited: 100.5,
  expired_at: '2026-11-22T04:07:20.123Z',
  paid_at: '2026-11-22T03:09:41.507Z',
  created_at: '2026-11-22T03:07:20.123Z',
}

export const PENDING_INVOICE_EXAMPLE = { ...INVOICE_EXAMPLE, status: 'pending', credited: null, paid_at: null }

export const CREATED_INVOICE_EXAMPLE = {
  order_id: INVOICE_ID,
  pay_url: PAY_URL,
  qr_url: `https://pay.shop.example/qr/${INVOICE_ID}.png`,
  qr_image:
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABAQAAAAA3bvkkAAAACklEQVR4AWNgAAAAAgABc3UBGAAAAABJRU5ErkJggg==',
  amount: '100.50',
  is_new: true,
}

export const DELIVERY_EXAMPLE = {
  id: EXAMPLE_IDS.delivery,
  event_id: EXAMPLE_IDS.event,
  invoice_id: INVOICE_ID,
  type: 'invoice.paid',
  url: 'https://shop.example/hooks/invoices',
  status: 'succeeded',
  attempts: [
    { at: '2026-11-22T03:09:41.512Z', status_code: 503, latency_ms: 41, error: 'HTTP 503' },
    { at: '2026-11-22T03:09:46.730Z', status_code: 200, latency_ms: 38, error: null },
  ],
  next_attempt_at: null,
  created_at: '2026-11-22T03:09:41.507Z',
}

export const PAY_STATUS_EXAMPLE = {
  status: 'paid',
  expired_at: '2026-11-22T04:07:20.123Z',
  paid_at: '2026-11-22T03:09:41.507Z',
  redirect_url: 'https://shop.example/orders/order-1001',
}

/** One representative problem per code, as the service answers it (the `detail` texts vary with the request). */
const DETAILS: Record<ErrorCode, { summary: string; detail: string; errors?: { field: string; message: string }[] }> = {
  invalid_json: { summary: 'The body is not valid JSON', detail: 'the body is not valid JSON' },
  validation_failed: {
    summary: 'A field is invalid or unknown',
    detail: 'amount: must have at most 2 decimal places for RUB',
    errors: [{ field: 'amount', message: 'must have at most 2 decimal places for RUB' }],
  },
  ambiguous_identifier: {
    summary: 'Both invoice_id and order_id were given',
    detail: 'give exactly one of invoice_id and order_id, not both',
  },
  missing_api_key: { summary: 'No X-Api-Key header', detail: 'send your API key in the X-Api-Key header' },
  invalid_api_key: { summary: 'Unknown or revoked API key', detail: 'the API key is unknown or revoked' },
  merchant_mismatch: {
    summary: 'merchant_id is not the key’s merchant',
    detail: 'merchant_id does not belong to this API key',
  },
  merchant_disabled: { summary: 'The merchant is disabled', detail: 'this merchant is disabled' },
  csrf_failed: {
    summary: 'A dashboard form without its CSRF token',
    detail: 'the form is missing its CSRF token or it does not match; reload the page',
  },
  forbidden: { summary: "A dashboard viewer's action", detail: 'a viewer may look but not change anything' },
  invoice_not_found: { summary: 'No such invoice of yours', detail: 'no such invoice for this merchant' },
  not_found: { summary: 'No such resource', detail: 'no such delivery for this merchant' },
  order_id_conflict: {
    summary: 'The order_id has a live invoice with another amount, currency or service',
    detail: `order_id "order-1001" already has a pending invoice ${INVOICE_ID} with another amount, currency or service; cancel it first to re-create the order`,
  },
  invalid_transition: {
    summary: 'The status does not allow this',
    detail: 'a pending invoice cannot become paid this way (only from hold)',
  },
  refund_exceeds_amount: {
    summary: 'The refunds of the invoice would exceed its amount',
    detail: 'the refunds of this invoice would exceed its amount: 40.50 RUB is left to refund',
  },
  refund_unsupported: {
    summary: 'The provider of the invoice cannot refund',
    detail: 'the provider of service usdc cannot refund',
  },
  idempotency_key_reuse: {
    summary: 'The Idempotency-Key was used with another request',
    detail: 'this Idempotency-Key was used with another request: send a new key for a new refund',
  },
  payload_too_large: { summary: 'Body over 16 KiB', detail: 'the body exceeds 16 KiB' },
  unsupported_media_type: { summary: 'Body not application/json', detail: 'send the body as application/json' },
  rate_limited: {
    summary: 'Too many requests for this key',
    detail: 'this API key is over its request rate; retry after 1 s',
  },
  internal_error: {
    summary: 'An unexpected error (no internals are shown)',
    detail: 'an internal error occurred; quote request id 6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f to the operator',
  },
  unavailable: { summary: 'The database cannot be reached; retry', detail: 'storage is unavailable; retry shortly' },
  unauthenticated: {
    summary: 'No valid credentials: an admin token missing, unknown or revoked; a provider notification not verified',
    detail: 'the admin token is unknown or revoked',
  },
  provider_error: {
    summary: 'The acquirer refused the request; nothing changed',
    detail: 'the acquirer refused: This PaymentIntent could not be captured because it has a status of canceled.',
  },
  provider_unavailable: {
    summary: 'The acquirer did not answer in time or failed; nothing changed, retry',
    detail: 'the acquirer is unavailable (timed out after 10 s); nothing changed, retry shortly',
  },
}

/** The problem document a code is answered with, as an OpenAPI Example Object. */
export function problemExample(code: ErrorCode): { summary: string; value: Record<string, unknown> } {
  const d = DETAILS[code]
  return { summary: d.summary, value: { ...problemOf(code, d.detail, d.errors) } }
}
