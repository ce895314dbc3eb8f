import { AppError } from '../domain/errors.js'
import type { Invoice } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { requireInvoiceId } from './require-id.js'

/**
 * The sandbox's refund test control (docs/refunds.md#sandbox): the next refund of this invoice is refused by the
 * sandbox, to try a shop's handling of `refund.failed`. Only for an invoice of a service bound to the sandbox (404
 * otherwise, as for /pay/{id}/simulate); the route exists only when SANDBOX is on. Armed once, it fails one refund.
 */
export async function armSandboxRefundFailure(
  deps: Pick<AppDeps, 'store' | 'providers' | 'clock'>,
  merchant: Merchant,
  id: string,
): Promise<Invoice> {
  const invoiceId = requireInvoiceId(id)
  const invoice = await deps.store.invoices.findById(invoiceId)
  if (
    invoice === undefined ||
    invoice.merchantId !== merchant.id ||
    !deps.providers.forService(invoice.service).capabilities.simulate
  )
    throw new AppError('invoice_not_found', 'no invoice of the sandbox provider of yours has this id')
  await deps.store.transaction((tx) => tx.refunds.armSandboxFailure(invoiceId, deps.clock.now()))
  return invoice
}
