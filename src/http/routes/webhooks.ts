import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { HttpDeps } from '../deps.js'
import { deliveryToWire } from '../dto.js'
import { emptyQueryIsAbsent } from '../plugins/empty-query.js'
import { queryEncodingChecked } from '../plugins/query-encoding.js'
import { AUTH_ERRORS, BODYLESS_ERRORS, SECURITY, problems } from '../schemas/common.js'
import {
  DeliveryIdParams,
  DeliveryListResponse,
  DeliverySchema,
  ListDeliveriesQuery,
  TestWebhookBody,
  TestWebhookResponse,
} from '../schemas/webhooks.js'

/** The merchant's webhook endpoints (docs/webhooks.md#delivery-log): the delivery log, redelivery, and a test event. */
export function webhookRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.get(
    '/api/v1/webhooks/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'The webhook delivery log, newest first',
        description:
          'Every webhook sent (or being sent) to your callback_url, with each attempt: when, the status code (null when there was no answer), ' +
          'the latency and the error. Cursor pagination: pass next_cursor as cursor for the next page; null on the last page.',
        tags: ['webhooks'],
        security: SECURITY,
        querystring: ListDeliveriesQuery,
        response: { 200: Type.Ref(DeliveryListResponse), ...problems(...AUTH_ERRORS, 'validation_failed') },
      },
      preValidation: [queryEncodingChecked, emptyQueryIsAbsent],
    },
    async (request) => {
      const q = request.query
      const { deliveries, nextCursor } = await deps.webhooks.listDeliveries(request.merchant, {
        invoiceId: q.invoice_id,
        status: q.status,
        limit: q.limit,
        cursor: q.cursor,
      })
      return { data: deliveries.map(deliveryToWire), next_cursor: nextCursor }
    },
  )

  r.post(
    '/api/v1/webhooks/deliveries/:delivery_id/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Redeliver a webhook now, with the same webhook-id',
        description:
          'The delivery becomes pending and is sent at once with the same webhook-id and body, then retried on the schedule if it fails; ' +
          'when an earlier event of the same invoice is still undelivered, it is sent after that one (events of an invoice keep their order). ' +
          'Works whatever its status (e.g. after fixing an endpoint that made it fail). Answers 202 with the delivery as it is now.',
        tags: ['webhooks'],
        security: SECURITY,
        params: DeliveryIdParams,
        response: {
          202: Type.Ref(DeliverySchema, { description: 'Queued for redelivery' }),
          ...problems(...AUTH_ERRORS, ...BODYLESS_ERRORS, 'not_found'),
        },
      },
    },
    async (request, reply) => {
      const delivery = await deps.webhooks.redeliver(request.merchant, request.params.delivery_id)
      reply.code(202)
      return deliveryToWire(delivery)
    },
  )

  r.post(
    '/api/v1/webhooks/test',
    {
      schema: {
        operationId: 'sendTestWebhook',
        summary: 'Send a webhook.test event to a URL now',
        description:
          'Signed like every webhook (webhook-id, webhook-timestamp, webhook-signature), under the same rules as callback_url ' +
          '(https; no loopback, private or other non-public address). Not stored and not retried: the answer is reported here.',
        tags: ['webhooks'],
        security: SECURITY,
        body: TestWebhookBody,
        response: {
          200: Type.Ref(TestWebhookResponse, {
            description: "The receiver's answer (a non-2xx answer is still a 200 here)",
          }),
          ...problems(
            ...AUTH_ERRORS,
            'validation_failed',
            'invalid_json',
            'payload_too_large',
            'unsupported_media_type',
          ),
        },
      },
    },
    async (request) => {
      const result = await deps.webhooks.sendTest(request.merchant, request.body.url)
      return { status_code: result.statusCode, latency_ms: result.latencyMs, error: result.error }
    },
  )
}
