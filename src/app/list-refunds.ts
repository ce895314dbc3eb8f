import { AppError } from '../domain/errors.js'
import type { Merchant } from '../domain/merchant.js'
import type { Refund } from '../domain/refund.js'
import type { AppDeps } from './deps.js'
import { requireInvoiceId } from './require-id.js'

/** GET /api/v1/invoices/{id}/refunds (docs/refunds.md#reading-refunds): the invoice's refunds, oldest first. */
export async function listRefunds(deps: Pick<AppDeps, 'store'>, merchant: Merchant, id: string): Promise<Refund[]> {
  const invoiceId = requireInvoiceId(id)
  const invoice = await deps.store.invoices.findById(invoiceId)
  if (invoice === undefined || invoice.merchantId !== merchant.id)
    throw new AppError('invoice_not_found', 'no such invoice for this merchant')
  return deps.store.refunds.listByInvoice(invoiceId)
}
