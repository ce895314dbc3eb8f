import type { InvoiceId } from '../domain/ids.js'
import { readStatus, type Invoice, type Status } from '../domain/invoice.js'
import type { AppDeps } from './deps.js'

/** What the buyer's payment page shows (docs/payment-page.md). */
export interface PaymentView {
  readonly invoice: Invoice
  readonly merchantName: string
  /** The status as it reads now (a pending invoice past expiry is expired). */
  readonly status: Status
}

export async function getPaymentView(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  id: InvoiceId,
): Promise<PaymentView | undefined> {
  const invoice = await deps.store.invoices.findById(id)
  if (invoice === undefined) return undefined
  const merchant = await deps.store.merchants.findById(invoice.merchantId)
  return { invoice, merchantName: merchant?.name ?? '', status: readStatus(invoice, deps.clock.now()) }
}
