import type { InvoiceId } from '../domain/ids.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'

/**
 * Asks the provider to capture or release a held payment before the status changes (outside any database
 * transaction: it is I/O to the acquirer). Nothing happens for invoices that are not this merchant's hold;
 * the transition that follows reports those cases.
 */
export async function settleHoldAtProvider(
  deps: Pick<AppDeps, 'store' | 'provider'>,
  merchant: Merchant,
  id: InvoiceId,
  action: 'capture' | 'release',
): Promise<void> {
  const inv = await deps.store.invoices.findById(id)
  if (inv === undefined || inv.merchantId !== merchant.id || inv.status !== 'hold') return
  const held = { invoiceId: inv.id, amount: inv.amount, currency: inv.currency, service: inv.service }
  await (action === 'capture' ? deps.provider.captureHold(held) : deps.provider.releaseHold(held))
}
