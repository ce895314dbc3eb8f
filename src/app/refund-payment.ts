import type { Invoice } from '../domain/invoice.js'
import type { PaymentAttempt } from '../domain/payment-attempt.js'
import type { PaymentProvider } from '../ports/payment-provider.js'
import type { AppDeps } from './deps.js'

/** The payment a refund of `invoice` gives money back from: its acquirer and the acquirer's ids. */
export interface RefundablePayment {
  readonly provider: PaymentProvider | undefined
  readonly checkoutId: string | null
  readonly paymentId: string | null
}

/**
 * The captured payment of a paid invoice: the attempt the acquirer took the money with (with its own provider, even
 * if the service was bound to another since), or, for the sandbox's invoices, which have no attempt, the provider
 * of the invoice's service. A refund made earlier names its provider: `named` (undefined when it is no longer
 * configured).
 */
export async function refundablePayment(
  deps: Pick<AppDeps, 'store' | 'providers'>,
  invoice: Invoice,
  named?: string,
): Promise<RefundablePayment> {
  const attempts = await deps.store.attempts.listByInvoice(invoice.id)
  const paid: PaymentAttempt | undefined = attempts.find((a) => a.state === 'succeeded' && a.lateAction === null)
  const name = named ?? paid?.provider
  const provider = name === undefined ? deps.providers.forService(invoice.service) : deps.providers.byName(name)
  return { provider, checkoutId: paid?.checkoutId ?? null, paymentId: paid?.paymentId ?? null }
}
