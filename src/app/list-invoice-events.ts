import type { InvoiceEvent } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { getInvoice } from './get-invoice.js'

/**
 * The dashboard's invoice timeline (docs/dashboard.md#the-invoice-page): the invoice's outbox events, oldest first —
 * each transition, late payment and refund outcome, at the time it was written. Another merchant's invoice is 404.
 */
export async function listInvoiceEvents(
  deps: Pick<AppDeps, 'store'>,
  merchant: Merchant,
  id: string,
): Promise<InvoiceEvent[]> {
  const invoice = await getInvoice(deps, merchant, id)
  return deps.store.events.listByInvoice(invoice.id)
}
