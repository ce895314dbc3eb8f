import { isFinalAttempt, nextCheckDelaySeconds, type PaymentAttempt } from '../domain/payment-attempt.js'
import { readStatus } from '../domain/invoice.js'
import { applyPaymentUpdate, owesLate, settleLatePayment, type PaymentUpdateDeps } from './apply-payment-update.js'

/** An open checkout that no invoice can use any more is given up on after this long: acquirers end theirs sooner. */
const OPEN_GIVE_UP_MS = 2 * 86_400_000

export interface ReconcileReport {
  /** Attempts asked about. */
  readonly checked: number
  /** Of them, those whose answer moved something (or whose late money was given back). */
  readonly changed: number
  /** Of them, those the acquirer did not answer; each stays due on its backoff. */
  readonly failed: number
}

/**
 * Reconciliation (docs/providers.md#reconciliation): attempts with no news for RECONCILE_AFTER are asked about at
 * their acquirer, each next check twice as far off (at most RECONCILE_MAX_INTERVAL), until the payment is final.
 * The claim moves each attempt's next check in the claiming transaction (FOR UPDATE SKIP LOCKED on PostgreSQL), so
 * across instances each is asked about once. Late money not yet given back is retried here too.
 */
export async function reconcilePayments(deps: PaymentUpdateDeps, batch = 50): Promise<ReconcileReport> {
  const now = deps.clock.now()
  const { reconcileAfter, reconcileMaxInterval } = deps.acquirers
  const claimed = await deps.store.transaction((tx) =>
    tx.attempts.claimDue(
      now,
      batch,
      (a) => new Date(now.getTime() + nextCheckDelaySeconds(a.checks, reconcileAfter, reconcileMaxInterval) * 1000),
    ),
  )
  let changed = 0
  let failed = 0
  for (const attempt of claimed) {
    try {
      if (await checkOne(deps, attempt, now)) changed += 1
    } catch {
      failed += 1
    }
  }
  return { checked: claimed.length, changed, failed }
}

async function checkOne(deps: PaymentUpdateDeps, attempt: PaymentAttempt, now: Date): Promise<boolean> {
  if (owesLate(attempt)) {
    await settleLatePayment(deps, attempt)
    return true
  }
  const provider = deps.providers.byName(attempt.provider)
  if (provider === undefined || !provider.capabilities.fetch || isFinalAttempt(attempt.state)) {
    await stopChecking(deps, attempt)
    return false
  }
  const invoice = await deps.store.invoices.findById(attempt.invoiceId)
  const over = invoice === undefined || readStatus(invoice, now) !== 'pending'
  if (attempt.state === 'open' && over && now.getTime() - attempt.createdAt.getTime() > OPEN_GIVE_UP_MS) {
    await stopChecking(deps, attempt)
    return false
  }
  const update = await provider.fetchPayment(
    { checkoutId: attempt.checkoutId, paymentId: attempt.paymentId },
    { invoiceId: attempt.invoiceId, attempt: attempt.attempt },
  )
  const result = await applyPaymentUpdate(deps, attempt.provider, update, 'reconciliation')
  return result === 'applied' || result === 'late'
}

async function stopChecking(deps: PaymentUpdateDeps, attempt: PaymentAttempt): Promise<void> {
  await deps.store.transaction((tx) => tx.attempts.update({ ...attempt, nextCheckAt: null }, attempt.version))
}
