import type { Invoice } from '../domain/invoice.js'
import { transitionById, type TransitionDeps } from './apply-transition.js'
import { requireInvoiceId } from './require-id.js'

export const SIMULATED_OUTCOMES = ['paid', 'hold', 'failed'] as const
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number]

/**
 * The sandbox provider's notification of the buyer's result (docs/payment-page.md): pending → paid | hold | failed, and
 * the provider settling a hold itself (hold → paid | failed). From a final status, or hold → hold: 409.
 */
export async function simulatePayment(deps: TransitionDeps, id: string, outcome: SimulatedOutcome): Promise<Invoice> {
  return transitionById(deps, requireInvoiceId(id), outcome)
}
