import type { Invoice } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import type { TransitionDeps } from './apply-transition.js'
import { settleHold } from './settle-hold.js'
import { requireInvoiceId } from './require-id.js'

/**
 * POST /api/v1/invoices/{id}/capture (docs/api.md#capture-and-cancel): the merchant settles a hold → paid, its funds captured at the
 * provider first. A pending invoice cannot be captured (that would mark it paid without the buyer paying).
 * Another merchant's invoice is 404.
 */
export async function captureInvoice(
  deps: TransitionDeps & Pick<AppDeps, 'providers' | 'holdLifetime'>,
  merchant: Merchant,
  id: string,
): Promise<Invoice> {
  return settleHold(deps, merchant, requireInvoiceId(id), 'paid', ['hold'])
}
