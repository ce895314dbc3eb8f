import { Type } from '@sinclair/typebox'
import { InvoiceSchema, Nullable, Timestamp } from './common.js'
import { EXAMPLE_IDS, INVOICE_EXAMPLE } from './examples.js'

const REFUND_ID = '0193a1c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'

export const REFUND_EXAMPLE = {
  id: REFUND_ID,
  invoice_id: EXAMPLE_IDS.invoice,
  amount: '10.00',
  currency: 'RUB',
  status: 'succeeded',
  reason: 'one mug arrived broken',
  failure_reason: null,
  created_at: '2026-11-23T10:00:00.000Z',
  updated_at: '2026-11-23T10:00:00.412Z',
}

export const CreateRefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
        description:
          "Amount to refund in major units, under create's rules (a JSON number or a decimal string, no more decimals than the currency allows); " +
          'default: all that is left to refund',
        examples: ['10.00'],
      }),
    ),
    reason: Type.Optional(
      Type.String({ maxLength: 500, description: 'Why, for your records (at most 500 characters)' }),
    ),
  },
  { additionalProperties: false, examples: [{ amount: '10.00', reason: 'one mug arrived broken' }] },
)

export const CreateRefundHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Required: 1–255 printable ASCII characters, new for each refund. The same key with the same body answers the same refund; ' +
        'with another body 409 idempotency_key_reuse.',
      examples: ['refund-order-1001-1'],
    }),
  ),
})

export const RefundSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The refund id' }),
    invoice_id: Type.String({ format: 'uuid' }),
    amount: Type.String({
      description: "The amount refunded, with exactly the currency's decimals",
      examples: ['10.00'],
    }),
    currency: Type.String({ examples: ['RUB'] }),
    status: Type.String({
      enum: ['pending', 'succeeded', 'failed'],
      description:
        'pending: the acquirer has not confirmed it yet (it is asked again until it does); succeeded: the money is on its way back; ' +
        'failed: the acquirer refused it, or failed it after it had succeeded (see failure_reason); a failed refund does not count against the amount',
    }),
    reason: Nullable(Type.String({ description: 'The reason you gave' })),
    failure_reason: Nullable(
      Type.String({ description: "Why it failed, in the acquirer's words; null unless failed" }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Refund', additionalProperties: false, examples: [REFUND_EXAMPLE] },
)

export const RefundListResponse = Type.Object(
  { data: Type.Array(Type.Ref(RefundSchema), { description: 'Oldest first' }) },
  { $id: 'RefundList', additionalProperties: false, examples: [{ data: [REFUND_EXAMPLE] }] },
)

export const RefundIdParams = Type.Object({
  refund_id: Type.String({ description: 'Refund id (UUID)', examples: [REFUND_ID] }),
})

export const SandboxRefundFailureResponse = Type.Object(
  {
    invoice_id: Type.String({ format: 'uuid' }),
    fail_next_refund: Type.Boolean({ description: 'true: the next refund of this invoice will fail' }),
  },
  { additionalProperties: false, examples: [{ invoice_id: EXAMPLE_IDS.invoice, fail_next_refund: true }] },
)

export const RefundEventSchema = Type.Object(
  {
    type: Type.String({ enum: ['refund.succeeded', 'refund.failed'], description: 'What happened to the refund' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the acquirer answered' }),
    data: Type.Object(
      { ...InvoiceSchema.properties, refund: Type.Ref(RefundSchema) },
      {
        additionalProperties: false,
        description: 'The invoice as getInfo returns it (still paid), and the refund at the moment of the event',
      },
    ),
  },
  {
    $id: 'RefundEvent',
    additionalProperties: false,
    examples: [
      {
        type: 'refund.succeeded',
        timestamp: REFUND_EXAMPLE.updated_at,
        data: { ...INVOICE_EXAMPLE, refund: REFUND_EXAMPLE },
      },
    ],
  },
)
