import type { DeliveryWithAttempts } from '../domain/delivery.js'
import { AppError } from '../domain/errors.js'
import type { Invoice, InvoiceEvent } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { Refund } from '../domain/refund.js'
import type { AppDeps } from './deps.js'
import { requireInvoiceId } from './require-id.js'

export interface InvoiceRecord {
  readonly invoice: Invoice
  readonly merchant: Merchant | undefined
  /** Oldest first. */
  readonly events: readonly InvoiceEvent[]
  /** Newest first, each with its attempts. */
  readonly deliveries: readonly DeliveryWithAttempts[]
  readonly refunds: readonly Refund[]
}

/** Any merchant's invoice, read only, for the operator console (docs/dashboard.md#operator-console); unknown → 404. */
export async function getInvoiceRecord(deps: Pick<AppDeps, 'store'>, id: string): Promise<InvoiceRecord> {
  const invoiceId = requireInvoiceId(id)
  const invoice = await deps.store.invoices.findById(invoiceId)
  if (invoice === undefined) throw new AppError('not_found', `no invoice ${id}`)
  const [merchant, events, deliveries, refunds] = await Promise.all([
    deps.store.merchants.findById(invoice.merchantId),
    deps.store.events.listByInvoice(invoiceId),
    deps.store.deliveries.list({ merchantId: invoice.merchantId, invoiceId, limit: 100 }),
    deps.store.refunds.listByInvoice(invoiceId),
  ])
  return { invoice, merchant, events, deliveries, refunds }
}
