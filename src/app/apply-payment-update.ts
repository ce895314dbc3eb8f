import { AppError } from '../domain/errors.js'
import type { EventId } from '../domain/ids.js'
import { readStatus, touchWithEvent } from '../domain/invoice.js'
import { toMajorNumber } from '../domain/money.js'
import { decideAttempt, isFinalAttempt, type PaymentAttempt } from '../domain/payment-attempt.js'
import type { PaymentUpdate } from '../ports/payment-provider.js'
import type { Tx } from '../ports/store.js'
import { transitionIn, type TransitionDeps } from './apply-transition.js'
import type { AppDeps } from './deps.js'
import { paymentAt } from './held-payment.js'
import { recordEvent } from './record-event.js'

export type PaymentUpdateDeps = TransitionDeps & Pick<AppDeps, 'providers' | 'acquirers'>

/**
 * What an acquirer's word did: `applied` (it moved the attempt, and the invoice if the mapping says so), `unchanged`
 * (a duplicate, or a stale word arriving late: nothing moves backwards), `late` (money arrived for an invoice that
 * can no longer take it: it is being given back), `unknown` (no attempt of ours has these ids).
 */
export type UpdateResult = 'applied' | 'unchanged' | 'late' | 'unknown'

/**
 * Applies an acquirer's verified word on a payment (a notification, or reconciliation's fetch):
 * docs/providers.md#status-mapping. The attempt and the invoice move in one transaction, the invoice through the
 * same transition as every other change (with its outbox event). Late money is voided or refunded at the acquirer
 * after the commit, then reported with `invoice.late_payment` (docs/providers.md#late-payments); if the acquirer
 * cannot be reached, reconciliation tries again.
 */
export async function applyPaymentUpdate(
  deps: PaymentUpdateDeps,
  provider: string,
  update: PaymentUpdate,
  /** A notification is news: the next check waits RECONCILE_AFTER again. Reconciliation's own fetch is not. */
  source: 'notification' | 'reconciliation' = 'notification',
): Promise<UpdateResult> {
  const found = await findAttempt(deps, provider, update)
  if (found === undefined) return 'unknown'
  let result: { result: UpdateResult; attempt: PaymentAttempt | undefined } | undefined
  for (let round = 0; result === undefined; round += 1) {
    try {
      result = await applyOnce(deps, found, update, deps.clock.now(), source)
    } catch (err) {
      // the invoice moved between our read and the transition (the sweeper expired it, a merchant cancelled it):
      // decide again on what it is now, in a new transaction (this one's attempt write is rolled back with it)
      if (round < 3 && err instanceof AppError && err.code === 'invalid_transition') continue
      throw err
    }
  }
  deps.eventSignal.notify()
  if (result.attempt !== undefined) await settleLatePayment(deps, result.attempt).catch(() => undefined)
  return result.result
}

/** One transaction of `applyPaymentUpdate`: the attempt and, if the mapping says so, the invoice. */
async function applyOnce(
  deps: PaymentUpdateDeps,
  found: PaymentAttempt,
  update: PaymentUpdate,
  now: Date,
  source: 'notification' | 'reconciliation',
): Promise<{ result: UpdateResult; attempt: PaymentAttempt | undefined }> {
  return deps.store.transaction(async (tx) => {
    for (let round = 0; round < 5; round += 1) {
      const attempt = await tx.attempts.find(found.invoiceId, found.attempt)
      const invoice = await tx.invoices.findById(found.invoiceId)
      if (attempt === undefined || invoice === undefined) return { result: 'unknown' as const, attempt: undefined }
      const decision = decideAttempt(attempt, update.state, readStatus(invoice, now))
      const learned = attempt.paymentId === null && update.paymentId !== null
      if (!decision.moved && !learned) {
        // news all the same: reconciliation waits RECONCILE_AFTER again before it asks
        if (source === 'notification') await reschedule(tx, deps, attempt, now)
        return { result: 'unchanged' as const, attempt: undefined }
      }
      const next: PaymentAttempt = {
        ...attempt,
        state: decision.state,
        paymentId: attempt.paymentId ?? update.paymentId,
        checkoutId: attempt.checkoutId ?? update.checkoutId,
        amount: update.amount ?? attempt.amount,
        lateAction: decision.late ?? attempt.lateAction,
        checks: 0,
        // final and nothing to give back: nothing left to ask; else asked after RECONCILE_AFTER (at once when late)
        nextCheckAt:
          decision.late !== undefined || owesLate(attempt)
            ? now
            : isFinalAttempt(decision.state)
              ? null
              : new Date(now.getTime() + deps.acquirers.reconcileAfter * 1000),
        updatedAt: now,
      }
      if (!(await tx.attempts.update(next, attempt.version))) continue
      // late money for an invoice past expired_at that the sweeper has not expired yet: expire it first, so the
      // merchant hears invoice.expired before invoice.late_payment
      if (decision.late !== undefined && invoice.status === 'pending') {
        await transitionIn(tx, deps, () => tx.invoices.findById(invoice.id), 'expired', now)
      }
      if (decision.invoiceTo !== undefined) {
        await transitionIn(tx, deps, () => tx.invoices.findById(invoice.id), decision.invoiceTo, now)
      }
      return {
        result: decision.late !== undefined ? ('late' as const) : ('applied' as const),
        attempt: decision.late !== undefined ? { ...next, version: attempt.version + 1 } : undefined,
      }
    }
    throw new Error('the payment attempt kept changing under an update')
  })
}

/** Our attempt the update is about: by the reference in its metadata, checked against its ids; else by its ids. */
async function findAttempt(
  deps: PaymentUpdateDeps,
  provider: string,
  update: PaymentUpdate,
): Promise<PaymentAttempt | undefined> {
  return deps.store.transaction(async (tx) => {
    const ref = update.reference
    const byRef = ref === undefined ? undefined : await tx.attempts.find(ref.invoiceId, ref.attempt)
    const sameIds = (a: PaymentAttempt): boolean =>
      (a.checkoutId === null || update.checkoutId === null || a.checkoutId === update.checkoutId) &&
      (a.paymentId === null || update.paymentId === null || a.paymentId === update.paymentId)
    if (byRef !== undefined && byRef.provider === provider && sameIds(byRef)) return byRef
    return tx.attempts.findByAcquirerId(provider, { paymentId: update.paymentId, checkoutId: update.checkoutId })
  })
}

/** Late money not given back yet: the acquirer has not agreed to the void or refund. */
export const owesLate = (a: PaymentAttempt): boolean => a.lateAction === 'void' || a.lateAction === 'refund'

async function reschedule(tx: Tx, deps: PaymentUpdateDeps, attempt: PaymentAttempt, now: Date): Promise<void> {
  if (attempt.nextCheckAt === null || owesLate(attempt)) return
  await tx.attempts.update(
    { ...attempt, checks: 0, nextCheckAt: new Date(now.getTime() + deps.acquirers.reconcileAfter * 1000) },
    attempt.version,
  )
}

/**
 * Gives late money back (docs/providers.md#late-payments): the hold is voided, or the capture refunded in full, at
 * the acquirer with an idempotency key of its own, then the merchant is told with `invoice.late_payment`, once.
 * Throws when the acquirer does not agree: the attempt stays due, and reconciliation calls this again.
 */
export async function settleLatePayment(deps: PaymentUpdateDeps, attempt: PaymentAttempt): Promise<void> {
  const action = attempt.lateAction
  if (action !== 'void' && action !== 'refund') return
  const provider = deps.providers.byName(attempt.provider)
  const invoice = await deps.store.invoices.findById(attempt.invoiceId)
  if (provider === undefined || invoice === undefined) return
  // in full: what the acquirer took, which for a card acquirer is what it was asked for
  const payment = {
    ...paymentAt(invoice, attempt, `${attempt.id}-late-${action}`),
    amount: attempt.amount ?? invoice.amount,
  }
  if (action === 'void') await provider.releaseHold(payment)
  else await provider.refund({ ...payment, reason: 'paid after the invoice could no longer take it' })
  const now = deps.clock.now()
  await deps.store.transaction(async (tx) => {
    for (let round = 0; round < 5; round += 1) {
      const current = await tx.attempts.find(attempt.invoiceId, attempt.attempt)
      const inv = await tx.invoices.findById(attempt.invoiceId)
      if (current === undefined || inv === undefined || current.lateAction !== action) return // reported already
      const done: PaymentAttempt = {
        ...current,
        lateAction: action === 'void' ? 'voided' : 'refunded',
        state: action === 'void' && !isFinalAttempt(current.state) ? 'canceled' : current.state,
        nextCheckAt: null,
        updatedAt: now,
      }
      const touched = touchWithEvent(inv, 'invoice.late_payment', now, deps.newId() as EventId)
      if (!(await tx.invoices.update(touched.invoice, inv.status))) continue
      if (!(await tx.attempts.update(done, current.version))) continue
      await recordEvent(tx, deps, touched.invoice, touched.event, {
        late_payment: {
          amount: toMajorNumber(payment.amount, payment.exponent),
          currency: inv.currency,
          provider: current.provider,
          payment_id: current.paymentId ?? current.checkoutId,
          action: done.lateAction,
        },
      })
      return
    }
    throw new Error('the invoice kept changing while its late payment was reported')
  })
  deps.eventSignal.notify()
}
