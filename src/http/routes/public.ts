import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { parseUuid, type InvoiceId } from '../../domain/ids.js'
import { AppError } from '../../domain/errors.js'
import type { HttpDeps } from '../deps.js'
import { problems } from '../schemas/common.js'
import { EXAMPLE_IDS } from '../schemas/examples.js'

/** Unauthenticated endpoints (docs/api.md#public-endpoints): the QR image and the health probes. */
export function publicRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.get(
    '/qr/:invoice_id.png',
    {
      schema: {
        operationId: 'getQrImage',
        summary: "PNG of the invoice's QR code (encodes qr_data)",
        tags: ['public'],
        security: [],
        params: Type.Object({
          invoice_id: Type.String({ description: 'Invoice id (UUID)', examples: [EXAMPLE_IDS.invoice] }),
        }),
        response: {
          200: {
            description: 'The QR code (image/png)',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
          },
          ...problems('invoice_not_found'),
        },
      },
    },
    async (request, reply) => {
      const id = parseUuid(request.params.invoice_id)
      const invoice = id === undefined ? undefined : await deps.invoices.findPublic(id as InvoiceId)
      if (invoice === undefined) throw new AppError('invoice_not_found', 'no such invoice')
      // The QR payload of an invoice never changes, so the image can be cached for good.
      reply.type('image/png').header('cache-control', 'public, max-age=86400, immutable')
      return deps.qrPng(invoice.qrData)
    },
  )

  r.get(
    '/healthz',
    {
      schema: {
        operationId: 'healthz',
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ok') }, { description: 'Alive', examples: [{ status: 'ok' }] }),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  )

  r.get(
    '/readyz',
    {
      schema: {
        operationId: 'readyz',
        summary: 'Readiness: the database answers',
        tags: ['operations'],
        security: [],
        response: {
          200: Type.Object(
            { status: Type.Literal('ready') },
            { description: 'Ready', examples: [{ status: 'ready' }] },
          ),
          ...problems(),
        },
      },
    },
    async () => {
      await deps.ping()
      return { status: 'ready' as const }
    },
  )
}
