import { AppError } from '../domain/errors.js'
import type { EventId } from '../domain/ids.js'
import { touchWithEvent } from '../domain/invoice.js'
import { storedExponent } from '../domain/invoice-view.js'
import { acquirerRefundKey, settleRefund, type Refund, type RefundOutcome } from '../domain/refund.js'
import { refundView } from '../domain/refund-view.js'
import type { PaymentProvider, RefundResult } from '../ports/payment-provider.js'
import type { TransitionDeps } from './apply-transition.js'
import type { AppDeps } from './deps.js'
import { recordEvent } from './record-event.js'

export type RefundDeps = TransitionDeps & Pick<AppDeps, 'providers' | 'secrets' | 'acquirers'>

/**
 * Records an acquirer's word on a refund (its answer, a notification, reconciliation): docs/refunds.md#statuses.
 * A pending refund moves to `succeeded` or `failed`, and a succeeded one to `failed` when the acquirer fails it
 * afterwards, each with its event (`refund.succeeded` / `refund.failed`) in the same transaction: the outbox. The
 * invoice's row is locked (PostgreSQL) and its updatedAt moved past its last change, so the event keeps the
 * invoice's order (docs/webhooks.md#ordering). A stale or repeated word changes nothing. Resolves to the refund as
 * it stands after it.
 */
export async function applyRefundUpdate(
  deps: TransitionDeps,
  refund: Pick<Refund, 'id'>,
  outcome: RefundOutcome,
): Promise<Refund | undefined> {
  const now = deps.clock.now()
  const result = await deps.store.transaction(async (tx) => {
    for (let round = 0; round < 5; round += 1) {
      const current = await tx.refunds.findById(refund.id)
      if (current === undefined) return undefined
      const invoice = await tx.refunds.lockInvoice(current.invoiceId)
      if (invoice === undefined) return current
      const settled = settleRefund(current, outcome, now)
      if (settled === undefined) return current
      if (settled.event === undefined) {
        if (await tx.refunds.update(settled.refund, current)) return settled.refund
        continue
      }
      const touched = touchWithEvent(invoice, settled.event, now, deps.newId() as EventId)
      const next: Refund = { ...settled.refund, updatedAt: touched.event.createdAt }
      if (!(await tx.refunds.update(next, current))) continue
      if (!(await tx.invoices.update(touched.invoice, invoice.status)))
        throw new Error('the invoice changed under its locked refund') // rolled back; never with the lock held
      await recordEvent(tx, deps, touched.invoice, touched.event, { refund: refundView(next) })
      return next
    }
    throw new Error('the refund kept changing under an update')
  })
  deps.eventSignal.notify()
  return result
}

/**
 * Asks the acquirer about a refund with its own idempotency key (docs/refunds.md#outcomes): a refund it has an id
 * for is fetched; one whose first answer was lost is requested again with the same key, which names the same
 * acquirer refund. A refusal (`provider_error`) is an answer: the refund failed. No answer (`provider_unavailable`,
 * anything else) is none: undefined, the refund stays pending and is asked about again.
 */
export async function askAcquirer(
  provider: PaymentProvider,
  refund: Refund,
  payment: { checkoutId: string | null; paymentId: string | null },
  simulateFailure = false,
): Promise<RefundOutcome | undefined> {
  let result: RefundResult
  try {
    result =
      refund.providerRefundId !== null
        ? await provider.fetchRefund(refund.providerRefundId)
        : await provider.refund({
            invoiceId: refund.invoiceId,
            amount: refund.amount,
            currency: refund.currency,
            exponent: storedExponent(refund.currency),
            checkoutId: payment.checkoutId,
            paymentId: payment.paymentId,
            idempotencyKey: acquirerRefundKey(refund.id),
            reason: refund.reason,
            ...(simulateFailure && { simulateFailure: true }),
          })
  } catch (err) {
    if (err instanceof AppError && err.code === 'provider_error')
      return { status: 'failed', providerRefundId: null, failureReason: err.message }
    return undefined
  }
  return { status: result.state, providerRefundId: result.refundId, failureReason: result.failureReason ?? null }
}

/**
 * An acquirer's notification about a refund (docs/refunds.md#outcomes), verified by its adapter: applied to the refund
 * with this acquirer id, as its own answer would be. One we do not know (not ours, or its answer to our request has
 * not been recorded yet: that answer then carries the same word) is acknowledged and changes nothing.
 */
export async function applyRefundNotification(
  deps: TransitionDeps,
  provider: string,
  result: RefundResult,
): Promise<'applied' | 'unchanged' | 'unknown'> {
  const refund = await deps.store.refunds.findByProviderRefundId(provider, result.refundId)
  if (refund === undefined) return 'unknown'
  const after = await applyRefundUpdate(deps, refund, {
    status: result.state,
    providerRefundId: result.refundId,
    failureReason: result.failureReason ?? null,
  })
  return after !== undefined && after.status !== refund.status ? 'applied' : 'unchanged'
}
