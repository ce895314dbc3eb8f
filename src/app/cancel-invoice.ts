import type { Invoice } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import type { TransitionDeps } from './apply-transition.js'
import { endCheckouts } from './end-checkouts.js'
import { settleHold } from './settle-hold.js'
import { requireInvoiceId } from './require-id.js'

/**
 * POST /api/v1/invoices/{id}/cancel (docs/api.md#statuses, docs/api.md#capture-and-cancel): pending or hold → failed, e.g. to re-create an order with
 * a new amount; a hold's funds are released at the provider first. Another merchant's invoice is 404.
 */
export async function cancelInvoice(
  deps: TransitionDeps & Pick<AppDeps, 'providers' | 'holdLifetime'>,
  merchant: Merchant,
  id: string,
): Promise<Invoice> {
  const invoice = await settleHold(deps, merchant, requireInvoiceId(id), 'failed', ['pending', 'hold'])
  await endCheckouts(deps, [invoice])
  return invoice
}
