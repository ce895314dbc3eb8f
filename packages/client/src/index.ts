/**
 * @invoice-service/client — the typed client of the Merchant Invoice Service.
 *
 * ```ts
 * import { createInvoiceClient, verifyWebhook } from '@invoice-service/client'
 * const invoices = createInvoiceClient({ baseUrl: 'https://pay.example.com', apiKey: 'mk_…', merchantId: '…' })
 * const { pay_url } = await invoices.createInvoice({ order_id: 'A-1001', amount: '100.50', currency: 'RUB' })
 * ```
 *
 * The types come from the service's own OpenAPI document (openapi.json, generated into schema.d.ts).
 */
export {
  createInvoiceClient,
  type CreateRefundOptions,
  type InvoiceClient,
  type InvoiceClientOptions,
} from './client.js'
export { InvoiceServiceError, isInvoiceServiceError, type InvoiceServiceErrorCode } from './errors.js'
export { verifyWebhook, WebhookSecretError, WebhookVerificationError, type HeadersLike } from './webhooks.js'
export type * from './types.js'
export type { components, operations, paths, webhooks } from './schema.js'
