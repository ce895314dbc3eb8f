import { enabledExponent } from '../domain/catalog.js'
import type { Invoice } from '../domain/invoice.js'
import type { HeldPayment } from '../ports/payment-provider.js'
import type { AppDeps } from './deps.js'

/** The hold of `inv` as the provider is asked to capture or release it, with one idempotency key per operation. */
export function heldPayment(
  deps: Pick<AppDeps, 'catalog'>,
  inv: Invoice,
  operation: 'capture' | 'release',
): HeldPayment {
  return {
    invoiceId: inv.id,
    amount: inv.amount,
    currency: inv.currency,
    exponent: enabledExponent(deps.catalog, inv.currency) ?? 2,
    service: inv.service,
    checkoutId: null,
    paymentId: null,
    idempotencyKey: `${inv.id}:${operation}`,
  }
}
