import { Type } from '@sinclair/typebox'
import { DELIVERY_STATUSES } from '../../domain/delivery.js'
import { InvoiceSchema, Nullable, Timestamp } from './common.js'
import { DELIVERY_EXAMPLE, EXAMPLE_IDS, INVOICE_EXAMPLE } from './examples.js'
import { RefundEventSchema } from './refunds.js'

const STATUS_EVENT_TYPES = ['invoice.hold', 'invoice.paid', 'invoice.failed', 'invoice.expired'] as const
const WEBHOOK_EVENT_TYPES = [
  ...STATUS_EVENT_TYPES,
  'invoice.late_payment',
  'refund.succeeded',
  'refund.failed',
] as const

export const DeliveryAttemptSchema = Type.Object(
  {
    at: Timestamp,
    status_code: Nullable(
      Type.Integer({ description: "The receiver's status code; null when there was no answer", examples: [200] }),
    ),
    latency_ms: Type.Integer({
      description: 'From the start of the request to the answer or the failure',
      examples: [42],
    }),
    error: Nullable(
      Type.String({ description: 'Why the attempt did not succeed; null when it did', examples: ['HTTP 503'] }),
    ),
  },
  { $id: 'DeliveryAttempt', additionalProperties: false },
)

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The delivery id (for redelivery)' }),
    event_id: Type.String({
      format: 'uuid',
      description: 'The event id, sent as the webhook-id header; the same on every attempt',
    }),
    invoice_id: Type.String({ format: 'uuid' }),
    type: Type.String({ enum: [...WEBHOOK_EVENT_TYPES], description: 'The event type' }),
    // no format: 'uri': the serializer must not re-validate a stored URL
    url: Type.String({ description: "The invoice's callback_url" }),
    status: Type.String({
      enum: [...DELIVERY_STATUSES],
      description: 'pending (waiting or in flight), succeeded, or failed (given up)',
    }),
    attempts: Type.Array(Type.Ref(DeliveryAttemptSchema), { description: 'Oldest first' }),
    next_attempt_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'Delivery', additionalProperties: false, examples: [DELIVERY_EXAMPLE] },
)

export const DeliveryListResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(DeliverySchema), { description: 'Newest first' }),
    next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page' })),
  },
  { $id: 'DeliveryList', additionalProperties: false, examples: [{ data: [DELIVERY_EXAMPLE], next_cursor: null }] },
)

export const ListDeliveriesQuery = Type.Object({
  invoice_id: Type.Optional(
    Type.String({ description: 'Only the deliveries of this invoice (UUID)', examples: [EXAMPLE_IDS.invoice] }),
  ),
  status: Type.Optional(
    Type.String({ enum: [...DELIVERY_STATUSES], description: 'Only deliveries in this state', examples: ['failed'] }),
  ),
  limit: Type.Optional(
    Type.String({ description: 'Page size, a whole number from 1 to 200 (default 50)', examples: ['50'] }),
  ),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
})

export const DeliveryIdParams = Type.Object({
  delivery_id: Type.String({ description: 'Delivery id (UUID)', examples: [EXAMPLE_IDS.delivery] }),
})

export const TestWebhookBody = Type.Object(
  {
    url: Type.String({
      maxLength: 2048,
      description: 'Where to send the webhook.test event: the same rules as callback_url',
    }),
  },
  { additionalProperties: false, examples: [{ url: 'https://shop.example/hooks/invoices' }] },
)

export const TestWebhookResponse = Type.Object(
  {
    status_code: Nullable(Type.Integer({ description: "The receiver's status code; null when there was no answer" })),
    latency_ms: Type.Integer({ description: 'From the start of the request to the answer or the failure' }),
    error: Nullable(
      Type.String({ description: 'Why it did not succeed (non-2xx, timeout, refused address…); null on a 2xx' }),
    ),
  },
  {
    $id: 'TestWebhookResult',
    additionalProperties: false,
    examples: [{ status_code: 204, latency_ms: 37, error: null }],
  },
)

/**
 * What the service POSTs to an invoice's callback_url (docs/webhooks.md#events), for the document's `webhooks` section and the
 * generated client types. Not used to validate or serialize anything: the body is written by domain/delivery.ts.
 */
export const InvoiceEventSchema = Type.Object(
  {
    type: Type.String({ enum: [...STATUS_EVENT_TYPES], description: 'What happened to the invoice' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the event happened' }),
    data: Type.Ref(InvoiceSchema, { description: 'The invoice as getInfo returned it at the moment of the event' }),
  },
  {
    $id: 'InvoiceEvent',
    additionalProperties: false,
    examples: [{ type: 'invoice.paid', timestamp: INVOICE_EXAMPLE.paid_at, data: INVOICE_EXAMPLE }],
  },
)

export const TestEventSchema = Type.Object(
  {
    type: Type.Literal('webhook.test'),
    timestamp: Type.String({ format: 'date-time', description: 'When the test was sent' }),
    data: Type.Object({ merchant_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
  },
  {
    $id: 'TestEvent',
    additionalProperties: false,
    description: 'Sent only by POST /api/v1/webhooks/test',
    examples: [
      { type: 'webhook.test', timestamp: '2026-11-22T03:00:00.000Z', data: { merchant_id: EXAMPLE_IDS.merchant } },
    ],
  },
)

/** docs/providers.md#late-payments: money that arrived for an invoice that could no longer take it, given back. */
export const LatePaymentEventSchema = Type.Object(
  {
    type: Type.Literal('invoice.late_payment'),
    timestamp: Type.String({ format: 'date-time', description: 'When the money was given back' }),
    data: Type.Object(
      {
        ...InvoiceSchema.properties,
        late_payment: Type.Object(
          {
            amount: Type.Number({ description: 'What arrived, in major units', examples: [100.5] }),
            currency: Type.String({ examples: ['RUB'] }),
            provider: Type.String({ description: 'The acquirer', examples: ['stripe'] }),
            payment_id: Nullable(Type.String({ description: "The acquirer's payment id", examples: ['pi_3Q…'] })),
            action: Type.String({
              enum: ['voided', 'refunded', 'none'],
              description:
                'voided: the hold was released; refunded: the capture was refunded in full; none: a stablecoin payment, which stays at its deposit address for the merchant to settle by hand (docs/stablecoins.md#late-payments)',
            }),
          },
          { additionalProperties: false },
        ),
      },
      {
        additionalProperties: false,
        description: 'The invoice as getInfo returns it (its status unchanged), and what arrived and what was done',
      },
    ),
  },
  {
    $id: 'LatePaymentEvent',
    additionalProperties: false,
    examples: [
      {
        type: 'invoice.late_payment',
        timestamp: '2026-11-22T04:10:02.000Z',
        data: {
          ...INVOICE_EXAMPLE,
          status: 'expired',
          paid_at: null,
          credited: null,
          late_payment: {
            amount: 100.5,
            currency: 'RUB',
            provider: 'yookassa',
            payment_id: '2f1c…',
            action: 'refunded',
          },
        },
      },
    ],
  },
)

export const WebhookEventSchema = Type.Union(
  [
    Type.Ref(InvoiceEventSchema),
    Type.Ref(LatePaymentEventSchema),
    Type.Ref(RefundEventSchema),
    Type.Ref(TestEventSchema),
  ],
  {
    $id: 'WebhookEvent',
    description: 'The JSON body of a webhook request; tell the kinds apart by `type`',
  },
)
