import { nextCheckDelaySeconds } from '../domain/payment-attempt.js'
import type { Refund } from '../domain/refund.js'
import { applyRefundUpdate, askAcquirer, type RefundDeps } from './apply-refund-update.js'
import type { ReconcileReport } from './reconcile-payments.js'
import { refundablePayment } from './refund-payment.js'

/**
 * Reconciliation of refunds (docs/refunds.md#outcomes): a refund still pending after RECONCILE_AFTER — its
 * acquirer was down, its answer was lost, or it said pending — is asked about again on the payments' backoff:
 * fetched by its acquirer id when it has one, else requested again with its own idempotency key (the same acquirer
 * refund). The claim moves each one's next check in the claiming transaction (FOR UPDATE SKIP LOCKED on PostgreSQL),
 * so across instances each is asked about once.
 */
export async function reconcileRefunds(deps: RefundDeps, batch = 50): Promise<ReconcileReport> {
  const now = deps.clock.now()
  const { reconcileAfter, reconcileMaxInterval } = deps.acquirers
  const claimed = await deps.store.transaction((tx) =>
    tx.refunds.claimDue(
      now,
      batch,
      (r) => new Date(now.getTime() + nextCheckDelaySeconds(r.checks, reconcileAfter, reconcileMaxInterval) * 1000),
    ),
  )
  let changed = 0
  let failed = 0
  for (const refund of claimed) {
    try {
      if (await checkOne(deps, refund)) changed += 1
      else failed += 1
    } catch {
      failed += 1
    }
  }
  return { checked: claimed.length, changed, failed }
}

async function checkOne(deps: RefundDeps, refund: Refund): Promise<boolean> {
  const invoice = await deps.store.invoices.findById(refund.invoiceId)
  if (invoice === undefined) return false
  const payment = await refundablePayment(deps, invoice, refund.provider)
  // a provider no longer configured: the refund stays pending, and is asked about once it is again
  if (payment.provider === undefined) return false
  const outcome = await askAcquirer(payment.provider, refund, payment)
  if (outcome === undefined) return false
  const after = await applyRefundUpdate(deps, refund, outcome)
  return after !== undefined && after.status !== 'pending'
}
