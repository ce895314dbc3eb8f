/**
 * Friendly names for the generated types (schema.d.ts). Nothing here is written by hand: each name points into
 * the service's OpenAPI document, so a change to the API changes these types when the client is regenerated.
 */
import type { components, operations } from './schema.js'

type Schemas = components['schemas']
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never

/** An invoice as getInfo, getInvoice, capture, cancel and webhooks return it. */
export type Invoice = Schemas['Invoice']
export type InvoiceStatus = Invoice['status']
/** The body of POST /api/v1/invoices. */
export type CreateInvoiceRequest = JsonBody<operations['createInvoice']['requestBody']>
/** The answer to POST /api/v1/invoices; `order_id` is the invoice id, `is_new` false when it was already there. */
export type CreatedInvoice = Schemas['CreateInvoiceResponse']
export type InvoiceList = Schemas['InvoiceList']
export type Delivery = Schemas['Delivery']
export type DeliveryStatus = Delivery['status']
export type DeliveryList = Schemas['DeliveryList']
export type TestWebhookResult = Schemas['TestWebhookResult']
/** An invoice as GET /api/v1/invoices/{id} returns it: getInfo's fields and `refunded_amount`. */
export type InvoiceDetail = Schemas['InvoiceDetail']
/** A refund of a paid invoice. */
export type Refund = Schemas['Refund']
export type RefundStatus = Refund['status']
export type RefundList = Schemas['RefundList']
/** The body of POST /api/v1/invoices/{id}/refunds: no amount refunds all that is left. */
export type CreateRefundRequest = JsonBody<operations['createRefund']['requestBody']>

/** An RFC 9457 problem document, as every error of the API is answered. */
export type Problem = Schemas['Problem']
/** The API's stable machine-readable error codes. */
export type ProblemCode = Problem['code']
export type FieldError = Schemas['FieldError']

/** The body of a webhook request: an invoice event or a test event, told apart by `type`. */
export type WebhookEvent = Schemas['WebhookEvent']
export type InvoiceEvent = Schemas['InvoiceEvent']
export type InvoiceEventType = InvoiceEvent['type']
export type TestEvent = Schemas['TestEvent']
/** refund.succeeded / refund.failed: the invoice with the refund in `data.refund`. */
export type RefundEvent = Schemas['RefundEvent']

type ListQuery<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>
/** Filters of listInvoices; `limit` may be given as a number. */
export type ListInvoicesQuery = Omit<ListQuery<'listInvoices'>, 'limit'> & { limit?: number | string }
/** Filters of listDeliveries; `limit` may be given as a number. */
export type ListDeliveriesQuery = Omit<ListQuery<'listWebhookDeliveries'>, 'limit'> & { limit?: number | string }

/** Look an invoice up by its id, or by your order_id (the newest invoice of that order). */
export type InvoiceLookup = { invoice_id: string; order_id?: never } | { order_id: string; invoice_id?: never }
