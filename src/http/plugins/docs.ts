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
        { name: 'public', description: 'Unauthenticated buyer-facing endpoints' },
        { name: 'operations', description: 'Health and monitoring' },
      ],
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
