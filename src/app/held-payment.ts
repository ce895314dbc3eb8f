import { storedExponent } from '../domain/invoice-view.js'
import type { Invoice } from '../domain/invoice.js'
import type { AttemptState, PaymentAttempt } from '../domain/payment-attempt.js'
import type { HeldPayment, PaymentProvider } from '../ports/payment-provider.js'
import type { AppDeps } from './deps.js'

/** A hold as its provider is asked to capture or release it. */
export interface HoldAtProvider {
  readonly provider: PaymentProvider
  readonly payment: HeldPayment
  /** The acquirer attempt that holds the funds; undefined for the sandbox's holds (no acquirer payment). */
  readonly attempt: PaymentAttempt | undefined
}

/**
 * The hold of `inv` at its provider: the attempt the acquirer authorised (with its own provider, even if the service
 * was bound to another since), and one idempotency key per operation on it, so a retried capture is one capture.
 */
export async function holdAtProvider(
  deps: Pick<AppDeps, 'store' | 'providers'>,
  inv: Invoice,
  operation: 'capture' | 'release',
): Promise<HoldAtProvider> {
  const attempts = await deps.store.attempts.listByInvoice(inv.id)
  const attempt = attempts.find((a) => a.state === 'held')
  const provider = (attempt && deps.providers.byName(attempt.provider)) ?? deps.providers.forService(inv.service)
  return {
    provider,
    attempt,
    payment: paymentAt(inv, attempt, `${attempt?.id ?? inv.id}-${operation}`),
  }
}

/**
 * The invoice's payment at its acquirer as the port takes it: its amount in our minor units with the currency's own
 * exponent (a stored invoice's currency is always in the ISO table, even if it was disabled since), the attempt's
 * ids (none for the sandbox's), and the idempotency key of this one operation.
 */
export function paymentAt(inv: Invoice, attempt: PaymentAttempt | undefined, idempotencyKey: string): HeldPayment {
  return {
    invoiceId: inv.id,
    amount: inv.amount,
    currency: inv.currency,
    exponent: storedExponent(inv.currency),
    service: inv.service,
    checkoutId: attempt?.checkoutId ?? null,
    paymentId: attempt?.paymentId ?? null,
    idempotencyKey,
  }
}

/** Asks the provider to capture or release the hold; resolves once it agreed. */
export async function settleAtProvider(hold: HoldAtProvider, operation: 'capture' | 'release'): Promise<void> {
  await (operation === 'capture' ? hold.provider.captureHold(hold.payment) : hold.provider.releaseHold(hold.payment))
}

/**
 * Records what the acquirer agreed to on the attempt (captured → succeeded, released → canceled), so reconciliation
 * stops asking. Only forward, compare-and-set: a notification that moved it meanwhile already said as much.
 */
export async function recordSettled(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  attempt: PaymentAttempt | undefined,
  state: AttemptState,
): Promise<void> {
  if (attempt === undefined) return
  await deps.store.transaction((tx) =>
    tx.attempts.update({ ...attempt, state, nextCheckAt: null, updatedAt: deps.clock.now() }, attempt.version),
  )
}
