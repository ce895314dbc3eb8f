import { Type, type TSchema } from '@sinclair/typebox'
import { ERROR_STATUS, type ErrorCode } from '../../domain/errors.js'
import { INVOICE_EXAMPLE, problemExample } from './examples.js'

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])

export const FieldErrorSchema = Type.Object(
  { field: Type.String(), message: Type.String() },
  {
    $id: 'FieldError',
    additionalProperties: false,
    description: 'One invalid field: its name (dotted for nested fields) and what is wrong',
  },
)

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ examples: ['about:blank'] }),
    title: Type.String({ examples: ['Bad Request'] }),
    status: Type.Integer({ examples: [400] }),
    code: Type.String({ enum: Object.keys(ERROR_STATUS), description: 'Stable machine-readable error code' }),
    detail: Type.String({ examples: ['amount: must have at most 2 decimal places for RUB'] }),
    errors: Type.Optional(Type.Array(Type.Ref(FieldErrorSchema))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
)

/** A documented error response: RFC 9457 problem details, one named example per code it can carry. */
export interface ProblemResponse {
  readonly description: string
  readonly content: {
    readonly 'application/problem+json': { readonly schema: TSchema; readonly examples: Record<string, unknown> }
  }
}

/**
 * Error responses of a route, by HTTP status, each documented with the codes it can carry. Keyed by media type, so
 * the document says `application/problem+json` (what problem-json.ts sends); Fastify serializes a problem reply with
 * the same Problem schema as before.
 */
export function problems(...codes: ErrorCode[]): Record<number, ProblemResponse> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const c of [...codes, 'internal_error', 'unavailable'] as ErrorCode[]) {
    const s = ERROR_STATUS[c]
    byStatus.set(s, [...(byStatus.get(s) ?? []), c])
  }
  const out: Record<number, ProblemResponse> = {}
  for (const [status, list] of byStatus) {
    out[status] = {
      description: `Problem with code ${list.map((c) => `\`${c}\``).join(' or ')}`,
      content: {
        'application/problem+json': {
          schema: Type.Ref(ProblemSchema),
          examples: Object.fromEntries(list.map((c) => [c, problemExample(c)])),
        },
      },
    }
  }
  return out
}

export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-22T03:07:20.123Z'] })

export const InvoiceSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The invoice id' }),
    merchant_id: Type.String({ format: 'uuid', description: 'Your merchant id' }),
    order_id: Type.String({
      description: "The merchant's own order identifier, as sent at creation",
      examples: ['order-1001'],
    }),
    amount: Type.Number({ description: 'Amount in major units', examples: [100.5] }),
    currency: Type.String({ examples: ['RUB'] }),
    status: Type.String({ enum: ['pending', 'hold', 'paid', 'failed', 'expired'] }),
    service: Type.String({ examples: ['card'] }),
    url: Type.String({ format: 'uri', description: 'Payment page link' }),
    qr_data: Type.String({ description: 'What the QR code encodes' }),
    credited: Nullable(Type.Number({ description: 'Amount credited after the service fee; null until paid' })),
    expired_at: Timestamp,
    paid_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  {
    $id: 'Invoice',
    additionalProperties: false,
    description: 'An invoice as getInfo returns it (and as webhooks carry it in `data`)',
    examples: [INVOICE_EXAMPLE],
  },
)

/** The extension view of one invoice (GET /api/v1/invoices/{id}): getInfo's fields and a stablecoin payment's. */
export const InvoiceDetailSchema = Type.Object(
  {
    ...InvoiceSchema.properties,
    refunded_amount: Type.String({
      description: "The sum of the invoice's succeeded refunds, with exactly the currency's decimals ",
      examples: ['10.00'],
    }),
    payment: Type.Optional(
      Type.Object(
        {
          received: Type.String({
            description: "Everything seen at the deposit address, in the token's major units",
            examples: ['10.5'],
          }),
          confirmations: Type.Integer({ description: "The latest transfer's confirmations so far" }),
          confirmations_required: Type.Integer({ description: 'Confirmations a transfer needs to count' }),
          tx_hash: Nullable(Type.String({ description: "The latest transfer's transaction hash" })),
        },
        {
          additionalProperties: false,
          description: 'Stablecoin (evm) invoices only: what the deposit address received (docs/stablecoins.md)',
        },
      ),
    ),
    overpaid_amount: Type.Optional(
      Nullable(
        Type.String({
          description: "Paid stablecoin invoices: what was received beyond the amount, in the token's major units",
          examples: ['0.5'],
        }),
      ),
    ),
  },
  {
    $id: 'InvoiceDetail',
    additionalProperties: false,
    description:
      'An invoice as getInfo returns it, with what has been refunded of it, and the stablecoin payment of an evm invoice',
    examples: [
      { ...INVOICE_EXAMPLE, refunded_amount: '10.00' },
      {
        ...INVOICE_EXAMPLE,
        refunded_amount: '0.00',
        currency: 'USD',
        service: 'usdc',
        qr_data:
          'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x5C0B0a4E8b9C2f0F5dB5e3A6f5b7C3E0a4D1e2F3&uint256=100500000',
        payment: {
          received: '101',
          confirmations: 12,
          confirmations_required: 12,
          tx_hash: '0x9f2c6a1d3b8e4f7a0c5d2e9b1a6f3c8d4e7b0a2c5f8d1e3b6a9c2f5d8e1b4a7c',
        },
        overpaid_amount: '0.5',
      },
    ],
  },
)

export const SECURITY = [{ ApiKey: [] }]

/** What any merchant route can answer before it runs (docs/api.md#authentication, docs/api.md#limits). */
export const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'merchant_disabled', 'rate_limited'] as const

/**
 * What a POST that takes no body (capture, cancel, a delivery's retry) answers to one it is sent anyway: a
 * malformed id, a body that is not JSON, one that does not parse, one over the size limit.
 */
export const BODYLESS_ERRORS = [
  'validation_failed',
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
] as const
