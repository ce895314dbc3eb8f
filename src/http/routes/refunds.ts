import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { HttpDeps } from '../deps.js'
import { refundToWire } from '../dto.js'
import { numberText } from '../plugins/json-body.js'
import { AUTH_ERRORS, BODYLESS_ERRORS, SECURITY, problems } from '../schemas/common.js'
import { InvoiceIdParams } from '../schemas/invoices.js'
import {
  CreateRefundBody,
  CreateRefundHeaders,
  RefundIdParams,
  RefundListResponse,
  RefundSchema,
  SandboxRefundFailureResponse,
} from '../schemas/refunds.js'

/** Refunds of paid invoices (docs/refunds.md). */
export function refundRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.post(
    '/api/v1/invoices/:invoice_id/refunds',
    {
      schema: {
        operationId: 'createRefund',
        summary: 'Refund a paid invoice, in full or in part',
        description:
          'Only a paid invoice; the refunds that are not failed never add up to more than its amount, even when requests race ' +
          '(409 refund_exceeds_amount). Idempotency-Key is required. 201 with the refund once it is reserved: succeeded when the ' +
          'acquirer agreed, failed when it refused (failure_reason), pending when it has not answered yet (asked again until it does); ' +
          'a repeat of the same request with the same key answers the same refund.',
        tags: ['refunds'],
        security: SECURITY,
        params: InvoiceIdParams,
        headers: CreateRefundHeaders,
        body: CreateRefundBody,
        response: {
          201: Type.Ref(RefundSchema, { description: 'The refund (also when the same key and request are repeated)' }),
          ...problems(
            ...AUTH_ERRORS,
            'validation_failed',
            'invalid_json',
            'payload_too_large',
            'unsupported_media_type',
            'invoice_not_found',
            'invalid_transition',
            'refund_exceeds_amount',
            'refund_unsupported',
            'idempotency_key_reuse',
          ),
        },
      },
    },
    async (request, reply) => {
      const b = request.body
      const { refund } = await deps.refunds.create(request.merchant, request.params.invoice_id, {
        amount: b.amount,
        amountText: numberText(b, 'amount'),
        reason: b.reason,
        idempotencyKey: request.headers['idempotency-key'],
      })
      reply.code(201)
      return refundToWire(refund)
    },
  )

  r.get(
    '/api/v1/invoices/:invoice_id/refunds',
    {
      schema: {
        operationId: 'listRefunds',
        summary: "An invoice's refunds, oldest first",
        tags: ['refunds'],
        security: SECURITY,
        params: InvoiceIdParams,
        response: {
          200: Type.Ref(RefundListResponse),
          ...problems(...AUTH_ERRORS, 'validation_failed', 'invoice_not_found'),
        },
      },
    },
    async (request) => ({
      data: (await deps.refunds.list(request.merchant, request.params.invoice_id)).map(refundToWire),
    }),
  )

  r.get(
    '/api/v1/refunds/:refund_id',
    {
      schema: {
        operationId: 'getRefund',
        summary: 'Read one of your refunds by id',
        tags: ['refunds'],
        security: SECURITY,
        params: RefundIdParams,
        response: {
          200: Type.Ref(RefundSchema),
          ...problems(...AUTH_ERRORS, 'validation_failed', 'not_found'),
        },
      },
    },
    async (request) => refundToWire(await deps.refunds.get(request.merchant, request.params.refund_id)),
  )

  // docs/refunds.md#sandbox: absent (404) when SANDBOX is off, as /pay/{id}/simulate is
  if (deps.sandbox) {
    r.post(
      '/api/v1/sandbox/invoices/:invoice_id/fail-next-refund',
      {
        schema: {
          operationId: 'failNextSandboxRefund',
          summary: 'Sandbox provider: make the next refund of this invoice fail',
          description:
            "A test control, to try your handling of refund.failed: the sandbox refuses the invoice's next refund (once). " +
            'Only for invoices of a service bound to the sandbox (404 otherwise); absent when SANDBOX is off.',
          tags: ['refunds'],
          security: SECURITY,
          params: InvoiceIdParams,
          response: {
            200: SandboxRefundFailureResponse,
            ...problems(...AUTH_ERRORS, ...BODYLESS_ERRORS, 'invoice_not_found'),
          },
        },
      },
      async (request) => {
        const invoice = await deps.refunds.armSandboxFailure(request.merchant, request.params.invoice_id)
        return { invoice_id: invoice.id, fail_next_refund: true }
      },
    )
  }
}
