import type { FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { RefundEventSchema } from '../schemas/refunds.js'
import { InvoiceEventSchema, LatePaymentEventSchema, TestEventSchema, WebhookEventSchema } from '../schemas/webhooks.js'

/**
 * OpenAPI 3.1 generated from the route schemas (docs cannot drift from the code), served at /openapi.json,
 * and the reference UI at /docs from the package's own assets: no CDN, no external requests.
 */
export async function registerDocs(app: FastifyInstance, publicUrl: string): Promise<void> {
  // documentation only: the webhook bodies, for the `webhooks` section below and the generated client types
  for (const schema of [
    InvoiceEventSchema,
    LatePaymentEventSchema,
    RefundEventSchema,
    TestEventSchema,
    WebhookEventSchema,
  ])
    app.addSchema(schema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Merchant Invoice Service',
        version: '1.0.0',
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Create invoices for orders, send buyers to the hosted payment page or show the QR code, and read the outcome back. ' +
          'Merchant endpoints take the X-Api-Key header. Errors are RFC 9457 problem details with a stable `code`.',
      },
      servers: [{ url: publicUrl }],
      tags: [
        { name: 'invoices', description: 'Merchant endpoints (X-Api-Key)' },
        { name: 'refunds', description: 'Full and partial refunds of paid invoices (X-Api-Key)' },
        { name: 'webhooks', description: 'The webhook delivery log, redelivery and test events (X-Api-Key)' },
        { name: 'public', description: 'Unauthenticated buyer-facing endpoints' },
        { name: 'operations', description: 'Health and monitoring' },
        {
          name: 'admin',
          description: 'The operator’s admin API: merchants and their keys (Authorization: Bearer adm_…)',
        },
      ],
      // docs/webhooks.md#events: what the service sends to an invoice's callback_url (OpenAPI 3.1 webhooks)
      webhooks: {
        invoiceEvent: {
          post: {
            operationId: 'invoiceEvent',
            summary: 'An invoice event, POSTed to the invoice callback_url',
            tags: ['webhooks'],
            // the receiver authenticates the request by its signature, not by a key of ours
            security: [],
            description:
              'Standard Webhooks: verify webhook-signature (v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"> with the ' +
              'bytes of your whsec_ secret; two space-separated signatures during a rotation) on the raw body. Any 2xx within ' +
              'WEBHOOK_TIMEOUT is success; anything else is retried on WEBHOOK_RETRY_SCHEDULE; 410 stops the retries. At least once; ' +
              'in order per invoice; deduplicate by webhook-id.',
            parameters: [
              {
                name: 'webhook-id',
                in: 'header',
                required: true,
                description: 'The event id; the same on every retry',
                schema: { type: 'string' },
                example: '0193a1c3-0a1b-7c2d-8e3f-4a5b6c7d8e91',
              },
              {
                name: 'webhook-timestamp',
                in: 'header',
                required: true,
                description: 'Unix seconds of this attempt',
                schema: { type: 'string' },
                example: '1795316981',
              },
              {
                name: 'webhook-signature',
                in: 'header',
                required: true,
                description: 'v1,<base64 signature>, space-separated',
                schema: { type: 'string' },
                example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
              },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/WebhookEvent' },
                  examples: {
                    'invoice.paid': { summary: 'An invoice was paid', value: InvoiceEventSchema.examples[0] },
                    'invoice.late_payment': {
                      summary: 'Money arrived after the invoice expired and was refunded',
                      value: LatePaymentEventSchema.examples[0],
                    },
                    'refund.succeeded': {
                      summary: 'A refund of a paid invoice succeeded',
                      value: RefundEventSchema.examples[0],
                    },
                    'webhook.test': { summary: 'A test event', value: TestEventSchema.examples[0] },
                  },
                },
              },
            },
            responses: {
              '2XX': { description: 'Received: the delivery succeeded' },
              '4XX': { description: 'Not accepted (e.g. a bad signature): retried on the schedule' },
              '410': { description: 'Gone: stop retrying this delivery' },
            },
          },
        },
      },
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'mk_… merchant API key' },
          AdminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'adm_… admin token (invoice-service admin-token create), sent as Authorization: Bearer',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null, deepLinking: true, tryItOutEnabled: false },
    staticCSP: true,
    // without upgrade-insecure-requests: served over plain http on any host but localhost, it made the browser fetch
    // the page's own scripts and styles over https, which fail, and the reference rendered empty
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
