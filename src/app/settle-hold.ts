import { AppError } from '../domain/errors.js'
import type { InvoiceId } from '../domain/ids.js'
import { holdLapsedAt, readStatus, type Invoice, type Status } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { holdAtProvider, recordSettled, settleAtProvider } from './held-payment.js'
import type { PaymentAttempt } from '../domain/payment-attempt.js'
import { notAllowedFrom, transitionById, type Target, type TransitionDeps } from './apply-transition.js'

/**
 * The merchant's capture (hold → paid) and cancel (pending or hold → failed): a hold's funds are captured or
 * released at the provider first (outside any database transaction: it is I/O to the acquirer), then the status
 * changes. The status the decision was made on is the only one the change may start from: a read that saw
 * `pending` (no provider call) must not let the transaction move an invoice that became a hold meanwhile, or it
 * would be paid without its funds captured, or failed without them released. When the status moved between the
 * read and the write, the request is decided again on the new one (statuses only move forward: a few rounds).
 * The provider is expected to refuse what contradicts an earlier call on the same hold (a release after a
 * capture), as acquirers do, so two merchant requests racing on one hold cannot both settle it.
 *
 * A hold past the hold lifetime is not captured (docs/api.md#statuses: it is cancelled; the sweeper releases it). That is decided
 * here, before the acquirer is asked, and only here: once the acquirer has captured the funds, the invoice becomes
 * paid whatever the clock reads by then, or the buyer's money would be taken with the invoice left a hold.
 */
export async function settleHold(
  deps: TransitionDeps & Pick<AppDeps, 'providers' | 'holdLifetime'>,
  merchant: Merchant,
  id: InvoiceId,
  to: Target,
  allowedFrom: readonly Status[],
): Promise<Invoice> {
  /** The hold this request captured or released at the acquirer in an earlier round. */
  let settledEarlier: PaymentAttempt | undefined
  for (let round = 0; ; round += 1) {
    let settled: PaymentAttempt | undefined
    // in a transaction: on SQLite the status as the next write sees it, with the writes not yet committed
    const inv = await deps.store.transaction((tx) => tx.invoices.findById(id))
    if (inv === undefined || inv.merchantId !== merchant.id) throw new AppError('invoice_not_found', 'no such invoice')
    const now = deps.clock.now()
    const from = readStatus(inv, now)
    // The acquirer's notification of this very capture or release moved the invoice first: the request did what
    // it asked for, so it answers the invoice as it now is rather than 409.
    if (settledEarlier !== undefined && from === to) {
      await recordSettled(deps, settledEarlier, to === 'paid' ? 'succeeded' : 'canceled')
      return inv
    }
    if (!allowedFrom.includes(from)) throw notAllowedFrom(from, to, allowedFrom)
    if (from === 'hold') {
      const lapsed = to === 'paid' ? holdLapsedAt(inv, now, deps.holdLifetime * 1000) : undefined
      if (lapsed !== undefined) {
        throw new AppError(
          'invalid_transition',
          `the hold lapsed at ${lapsed.toISOString()} (the hold lifetime) and can no longer be captured; it is released and fails`,
        )
      }
      const operation = to === 'paid' ? 'capture' : 'release'
      const hold = await holdAtProvider(deps, inv, operation)
      await settleAtProvider(hold, operation)
      settled = hold.attempt
    }
    try {
      const moved = await transitionById(deps, id, to, { merchantId: merchant.id, onlyFrom: [from] })
      await recordSettled(deps, settled, to === 'paid' ? 'succeeded' : 'canceled')
      return moved
    } catch (err) {
      // moved since the read (a payment, the sweeper, another request): decide again on what it is now
      if (round < 3 && err instanceof AppError && err.code === 'invalid_transition') {
        settledEarlier = settled ?? settledEarlier
        continue
      }
      throw err
    }
  }
}
