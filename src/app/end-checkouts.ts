import type { InvoiceId } from '../domain/ids.js'
import type { AppDeps } from './deps.js'

/**
 * docs/providers.md#checkout: when an invoice stops taking money (it expired, or the merchant cancelled it), its
 * open checkouts at the acquirer are ended where the acquirer allows it, so the buyer cannot pay there any more.
 * Best effort: an acquirer that does not answer leaves the checkout to end on its own, and money that still arrives
 * is a late payment, given back (app/apply-payment-update.ts). Resolves once every acquirer answered or failed.
 */
export async function endCheckouts(
  deps: Pick<AppDeps, 'store' | 'providers'>,
  invoices: readonly { readonly id: InvoiceId; readonly service: string }[],
): Promise<void> {
  const calls: Promise<void>[] = []
  for (const invoice of invoices) {
    // the sandbox's invoices (most, in development) have no checkouts: not even a query
    if (!deps.providers.forService(invoice.service).capabilities.checkout) continue
    calls.push(
      (async () => {
        for (const attempt of await deps.store.attempts.listByInvoice(invoice.id)) {
          const provider = deps.providers.byName(attempt.provider)
          if (provider === undefined || (attempt.state !== 'open' && attempt.state !== 'starting')) continue
          await provider.endCheckout({ checkoutId: attempt.checkoutId, paymentId: attempt.paymentId })
        }
      })(),
    )
  }
  await Promise.allSettled(calls)
}
