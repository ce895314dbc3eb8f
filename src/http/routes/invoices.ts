import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { HttpDeps } from '../deps.js'
import type { CreateInvoiceInput } from '../../domain/invoice-request.js'
import type { Invoice } from '../../domain/invoice.js'
import { createResponseToWire, invoiceDetailToWire, invoiceToWire, type CreateResponseWire } from '../dto.js'
import { handedOver } from '../plugins/hand-over.js'
import { numberText } from '../plugins/json-body.js'
import { emptyQueryIsAbsent } from '../plugins/empty-query.js'
import { queryEncodingChecked } from '../plugins/query-encoding.js'
import {
  AUTH_ERRORS,
  BODYLESS_ERRORS,
  InvoiceDetailSchema,
  InvoiceSchema,
  SECURITY,
  problems,
} from '../schemas/common.js'
import {
  CreateInvoiceBody,
  CreateInvoiceResponse,
  GetInfoQuery,
  InvoiceIdParams,
  InvoiceListResponse,
  ListInvoicesQuery,
} from '../schemas/invoices.js'
import { Type, type Static } from '@sinclair/typebox'

/** A create's body (validated by its schema) as the create use case takes it. */
export function createCommand(b: Static<typeof CreateInvoiceBody>): CreateInvoiceInput {
  return {
    orderId: b.order_id,
    amount: b.amount,
    amountText: numberText(b, 'amount'),
    currency: b.currency,
    comment: b.comment,
    service: b.service,
    callbackUrl: b.callback_url,
    successUrl: b.success_url,
    failUrl: b.fail_url,
    lifetime: b.lifetime,
  }
}

/** A create's answer: 201 and the new invoice (counted), or 200 and the order's live one (docs/api.md#create-an-invoice). */
export function createdAnswer(
  deps: Pick<HttpDeps, 'metrics' | 'publicUrl' | 'qrDataUri'>,
  invoice: Invoice,
  isNew: boolean,
): { readonly status: 200 | 201; readonly body: CreateResponseWire } {
  if (isNew) deps.metrics.invoicesCreated.inc({ currency: invoice.currency, service: invoice.service })
  return {
    status: isNew ? 201 : 200,
    body: createResponseToWire(invoice, isNew, deps.publicUrl, deps.qrDataUri(invoice.qrData)),
  }
}

/** The original API's two endpoints and the invoice read extensions (docs/api.md#create-an-invoice, docs/api.md#getinfo, docs/api.md#list-invoices). */
export function invoiceRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.post(
    '/api/v1/invoices',
    {
      schema: {
        operationId: 'createInvoice',
        summary: 'Create an invoice for an order',
        description:
          'Idempotent by order_id: the same order_id with the same amount, currency and service returns the live invoice (200, is_new false); ' +
          'a different amount, currency or service is 409 order_id_conflict; after expired/failed a new invoice is created.',
        tags: ['invoices'],
        security: SECURITY,
        body: CreateInvoiceBody,
        response: {
          201: Type.Ref(CreateInvoiceResponse, { description: 'A new invoice' }),
          200: Type.Ref(CreateInvoiceResponse, { description: 'The live invoice of this order_id (is_new: false)' }),
          ...problems(
            ...AUTH_ERRORS,
            'validation_failed',
            'invalid_json',
            'order_id_conflict',
            'payload_too_large',
            'unsupported_media_type',
          ),
        },
      },
    },
    async (request, reply) => {
      // a create the fast path ran before handing the request over is answered, not run again (plugins/hand-over.ts)
      const { invoice, isNew } = await (handedOver(request.raw)?.created ??
        deps.invoices.create(request.merchant, createCommand(request.body)))
      const answer = createdAnswer(deps, invoice, isNew)
      reply.code(answer.status)
      return answer.body
    },
  )

  r.get(
    '/api/invoice/getInfo',
    {
      schema: {
        operationId: 'getInvoiceInfo',
        summary: 'Read an invoice by invoice_id or by order_id',
        description: 'Exactly one of invoice_id and order_id. A pending invoice past expired_at reads as expired.',
        tags: ['invoices'],
        security: SECURITY,
        querystring: GetInfoQuery,
        response: {
          200: Type.Ref(InvoiceSchema),
          ...problems(
            ...AUTH_ERRORS,
            'validation_failed',
            'ambiguous_identifier',
            'merchant_mismatch',
            'invoice_not_found',
          ),
        },
      },
      preValidation: queryEncodingChecked,
    },
    async (request) => {
      const q = request.query
      const invoice = await deps.invoices.getInfo(request.merchant, {
        merchantId: q.merchant_id,
        invoiceId: q.invoice_id,
        orderId: q.order_id,
      })
      return invoiceToWire(invoice, deps.now())
    },
  )

  r.get(
    '/api/v1/invoices/:invoice_id',
    {
      schema: {
        operationId: 'getInvoice',
        summary: 'Read one of your invoices by id',
        tags: ['invoices'],
        security: SECURITY,
        params: InvoiceIdParams,
        description: "getInfo's 13 fields and refunded_amount, the sum of the invoice's succeeded refunds.",
        response: {
          200: Type.Ref(InvoiceDetailSchema),
          ...problems(...AUTH_ERRORS, 'validation_failed', 'invoice_not_found'),
        },
      },
    },
    async (request) => {
      const { invoice, refunded } = await deps.invoices.detail(request.merchant, request.params.invoice_id)
      return invoiceDetailToWire(invoice, refunded, await deps.invoices.depositPayment(invoice), deps.now())
    },
  )

  r.get(
    '/api/v1/invoices',
    {
      schema: {
        operationId: 'listInvoices',
        summary: 'List your invoices, newest first',
        description: 'Cursor pagination: pass next_cursor as cursor for the next page; null on the last page.',
        tags: ['invoices'],
        security: SECURITY,
        querystring: ListInvoicesQuery,
        response: { 200: Type.Ref(InvoiceListResponse), ...problems(...AUTH_ERRORS, 'validation_failed') },
      },
      preValidation: [queryEncodingChecked, emptyQueryIsAbsent],
    },
    async (request) => {
      const q = request.query
      const { invoices, nextCursor, asOf } = await deps.invoices.list(request.merchant, {
        status: q.status,
        createdFrom: q.created_from,
        createdTo: q.created_to,
        limit: q.limit,
        cursor: q.cursor,
      })
      // as of the instant the status filter used: `?status=pending` never shows an invoice reading expired
      return { data: invoices.map((i) => invoiceToWire(i, asOf)), next_cursor: nextCursor }
    },
  )

  for (const action of ['capture', 'cancel'] as const) {
    r.post(
      `/api/v1/invoices/:invoice_id/${action}`,
      {
        schema: {
          operationId: `${action}Invoice`,
          summary: action === 'capture' ? 'Capture a hold: hold → paid' : 'Cancel an invoice: pending or hold → failed',
          description:
            action === 'capture'
              ? "Settles the buyer's authorised funds. Only a hold can be captured; anything else is 409 invalid_transition."
              : 'Cancels a pending invoice (e.g. to re-create its order with a new amount) or releases a hold. Final invoices answer 409 invalid_transition.',
          tags: ['invoices'],
          security: SECURITY,
          params: InvoiceIdParams,
          response: {
            200: Type.Ref(InvoiceSchema),
            ...problems(...AUTH_ERRORS, ...BODYLESS_ERRORS, 'invoice_not_found', 'invalid_transition'),
          },
        },
      },
      async (request) => {
        const invoice = await deps.invoices[action](request.merchant, request.params.invoice_id)
        return invoiceToWire(invoice, deps.now())
      },
    )
  }
}
