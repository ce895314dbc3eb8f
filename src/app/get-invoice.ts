import { AppError, validationFailed, type FieldError } from '../domain/errors.js'
import { parseUuid, type InvoiceId, type MerchantId } from '../domain/ids.js'
import type { Invoice } from '../domain/invoice.js'
import type { InvoiceInfo } from '../domain/invoice-view.js'
import type { Merchant } from '../domain/merchant.js'
import type { Minor } from '../domain/money.js'
import { refundedTotal } from '../domain/refund.js'
import type { AppDeps } from './deps.js'
import { requireInvoiceId } from './require-id.js'

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

export interface GetInfoQuery {
  readonly merchantId?: string | undefined
  readonly invoiceId?: string | undefined
  readonly orderId?: string | undefined
}

/**
 * docs/api.md#getinfo, after authentication: query (400), then the key's merchant = merchant_id (403), then the
 * invoice (404). Another merchant's invoice is indistinguishable from a missing one.
 */
export async function getInvoiceInfo(
  deps: Pick<AppDeps, 'store'>,
  merchant: Merchant,
  query: GetInfoQuery,
): Promise<InvoiceInfo> {
  const hasId = query.invoiceId !== undefined
  const hasOrder = query.orderId !== undefined
  if (hasId && hasOrder) {
    throw new AppError('ambiguous_identifier', 'give exactly one of invoice_id and order_id, not both')
  }
  const errors: FieldError[] = []
  const merchantId = query.merchantId === undefined ? undefined : parseUuid(query.merchantId)
  if (query.merchantId === undefined) errors.push({ field: 'merchant_id', message: 'is required' })
  else if (merchantId === undefined) errors.push({ field: 'merchant_id', message: 'must be a UUID' })
  const invoiceId = query.invoiceId === undefined ? undefined : parseUuid(query.invoiceId)
  if (!hasId && !hasOrder) errors.push({ field: 'invoice_id', message: 'give invoice_id or order_id' })
  else if (hasId && invoiceId === undefined) errors.push({ field: 'invoice_id', message: 'must be a UUID' })
  if (hasOrder && (query.orderId === '' || [...(query.orderId ?? '')].length > 128)) {
    errors.push({ field: 'order_id', message: 'must be 1 to 128 characters' })
  } else if (hasOrder && CONTROL.test(query.orderId ?? '')) {
    // no order_id can hold one (creation refuses them), and PostgreSQL cannot even compare a NUL
    errors.push({ field: 'order_id', message: 'must not contain control characters' })
  }
  if (errors.length > 0) throw validationFailed(errors)

  if (merchantId !== merchant.id) {
    throw new AppError('merchant_mismatch', 'merchant_id does not belong to this API key')
  }
  const invoice =
    invoiceId !== undefined
      ? await deps.store.invoices.findInfo(merchant.id, invoiceId as InvoiceId)
      : await deps.store.invoices.findByOrderId(merchant.id, query.orderId ?? '')
  if (invoice === undefined) throw notFound()
  return invoice
}

/** GET /api/v1/invoices/{id}: the merchant's own invoice or 404. */
export async function getInvoice(deps: Pick<AppDeps, 'store'>, merchant: Merchant, id: string): Promise<Invoice> {
  const invoice = await findOwned(deps, merchant.id, requireInvoiceId(id))
  if (invoice === undefined) throw notFound()
  return invoice
}

/**
 * GET /api/v1/invoices/{id}, the extension view (docs/refunds.md#the-invoice-view): the invoice and what has been
 * refunded of it (the refunds that succeeded), in minor units.
 */
export async function getInvoiceDetail(
  deps: Pick<AppDeps, 'store'>,
  merchant: Merchant,
  id: string,
): Promise<{ readonly invoice: Invoice; readonly refunded: Minor }> {
  const invoice = await getInvoice(deps, merchant, id)
  return { invoice, refunded: refundedTotal(await deps.store.refunds.listByInvoice(invoice.id)) }
}

async function findOwned(
  deps: Pick<AppDeps, 'store'>,
  merchantId: MerchantId,
  id: InvoiceId,
): Promise<Invoice | undefined> {
  const invoice = await deps.store.invoices.findById(id)
  return invoice?.merchantId === merchantId ? invoice : undefined
}

function notFound(): AppError {
  return new AppError('invoice_not_found', 'no such invoice for this merchant')
}
