import type { FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'

/**
 * OpenAPI 3.1 generated from the route schemas (docs cannot drift from the code), served at /openapi.json,
 * and the reference UI at /docs from the package's own assets: no CDN, no external requests.
 */
export async function registerDocs(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Merchant Invoice Service',
        version: '1.0.0',
        description:
          'Create invoices for orders, send buyers to the hosted payment page or show the QR code, and read the outcome back. ' +
          'Merchant endpoints take the X-Api-Key header. Errors are RFC 9457 problem details with a stable `code`.',
      },
      servers: [{ url: publicUrl }],
      tags: [
        { name: 'invoices', description: 'Merchant endpoints (X-Api-Key)' },
        { name: 'webhooks', description: 'The webhook delivery log, redelivery and test events (X-Api-Key)' },
        { name: 'public', description: 'Unauthenticated buyer-facing endpoints' },
        { name: 'operations', description: 'Health and monitoring' },
      ],
      // API.md B6: what the service sends to an invoice's callback_url (OpenAPI 3.1 webhooks)
      webhooks: {
        invoiceEvent: {
          post: {
            summary: 'An invoice event, POSTed to the invoice callback_url',
            description:
              'Standard Webhooks: verify webhook-signature (v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"> with the ' +
              'bytes of your whsec_ secret; two space-separated signatures during a rotation) on the raw body. Any 2xx within ' +
              'WEBHOOK_TIMEOUT is success; anything else is retried on WEBHOOK_RETRY_SCHEDULE; 410 stops the retries. At least once; ' +
              'in order per invoice; deduplicate by webhook-id.',
            parameters: [
              { name: 'webhook-id', in: 'header', required: true, description: 'The event id; the same on every retry', schema: { type: 'string' } },
              { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds of this attempt', schema: { type: 'string' } },
              { name: 'webhook-signature', in: 'header', required: true, description: 'v1,<base64 signature>, space-separated', schema: { type: 'string' } },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['type', 'timestamp', 'data'],
                    properties: {
                      type: { type: 'string', enum: ['invoice.hold', 'invoice.paid', 'invoice.failed', 'invoice.expired', 'webhook.test'] },
                      timestamp: { type: 'string', format: 'date-time', description: 'When the event happened' },
                      data: { $ref: '#/components/schemas/Invoice', description: 'The invoice as getInfo returned it at the event' },
                    },
                  },
                },
              },
            },
            responses: { '2XX': { description: 'Received' }, '410': { description: 'Gone: stop retrying this delivery' } },
          },
        },
      },
      components: {
        securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'mk_… merchant API key' } },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null, deepLinking: true, tryItOutEnabled: false },
    staticCSP: true,
    transformStaticCSP: (header) => header,
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
