import { AppError } from '../domain/errors.js'
import type { Invoice } from '../domain/invoice.js'
import type { AppDeps } from './deps.js'
import { transitionById, type TransitionDeps } from './apply-transition.js'
import { requireInvoiceId } from './require-id.js'

export const SIMULATED_OUTCOMES = ['paid', 'hold', 'failed'] as const
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number]

/**
 * The sandbox provider's notification of the buyer's result (docs/payment-page.md): pending → paid | hold | failed, and
 * the provider settling a hold itself (hold → paid | failed). From a final status, or hold → hold: 409.
 */
export async function simulatePayment(
  deps: TransitionDeps & Pick<AppDeps, 'providers'>,
  id: string,
  outcome: SimulatedOutcome,
): Promise<Invoice> {
  const invoiceId = requireInvoiceId(id)
  // docs/providers.md#the-sandbox: the test controls act only on the sandbox's invoices, whatever SANDBOX says, so a
  // payment link can never mark an invoice of a real acquirer paid
  const invoice = await deps.store.invoices.findById(invoiceId)
  if (invoice === undefined || !deps.providers.forService(invoice.service).capabilities.simulate) {
    throw new AppError('invoice_not_found', 'no invoice of the sandbox provider has this id')
  }
  return transitionById(deps, invoiceId, outcome)
}
