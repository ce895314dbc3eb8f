import { Type } from '@sinclair/typebox'
import { DELIVERY_STATUSES } from '../../domain/delivery.js'
import { Nullable, Timestamp } from './common.js'

const WEBHOOK_EVENT_TYPES = ['invoice.hold', 'invoice.paid', 'invoice.failed', 'invoice.expired'] as const

export const DeliveryAttemptSchema = Type.Object(
  {
    at: Timestamp,
    status_code: Nullable(Type.Integer({ description: "The receiver's status code; null when there was no answer", examples: [200] })),
    latency_ms: Type.Integer({ description: 'From the start of the request to the answer or the failure', examples: [42] }),
    error: Nullable(Type.String({ description: 'Why the attempt did not succeed; null when it did', examples: ['HTTP 503'] })),
  },
  { $id: 'DeliveryAttempt', additionalProperties: false },
)

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The delivery id (for redelivery)' }),
    event_id: Type.String({ format: 'uuid', description: 'The event id, sent as the webhook-id header; the same on every attempt' }),
    invoice_id: Type.String({ format: 'uuid' }),
    type: Type.String({ enum: [...WEBHOOK_EVENT_TYPES] }),
    // no format: 'uri': the serializer must not re-validate a stored URL
    url: Type.String({ description: "The invoice's callback_url" }),
    status: Type.String({ enum: [...DELIVERY_STATUSES], description: 'pending (waiting or in flight), succeeded, or failed (given up)' }),
    attempts: Type.Array(Type.Ref(DeliveryAttemptSchema), { description: 'Oldest first' }),
    next_attempt_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'Delivery', additionalProperties: false },
)

export const DeliveryListResponse = Type.Object(
  { data: Type.Array(Type.Ref(DeliverySchema)), next_cursor: Nullable(Type.String()) },
  { $id: 'DeliveryList', additionalProperties: false },
)

export const ListDeliveriesQuery = Type.Object({
  invoice_id: Type.Optional(Type.String({ description: 'Only the deliveries of this invoice (UUID)' })),
  status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Page size, 1–200 (default 50)' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
})

export const DeliveryIdParams = Type.Object({ delivery_id: Type.String({ description: 'Delivery id (UUID)' }) })

export const TestWebhookBody = Type.Object(
  { url: Type.String({ maxLength: 2048, description: 'Where to send the webhook.test event: the same rules as callback_url' }) },
  { additionalProperties: false, examples: [{ url: 'https://shop.example/hooks/invoices' }] },
)

export const TestWebhookResponse = Type.Object(
  {
    status_code: Nullable(Type.Integer({ description: "The receiver's status code; null when there was no answer" })),
    latency_ms: Type.Integer(),
    error: Nullable(Type.String({ description: 'Why it did not succeed (non-2xx, timeout, refused address…); null on a 2xx' })),
  },
  { $id: 'TestWebhookResult', additionalProperties: false },
)
