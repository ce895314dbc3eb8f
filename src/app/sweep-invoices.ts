import { AppError } from '../domain/errors.js'
import type { TransitionDeps } from './apply-transition.js'
import { transitionById, transitionIn } from './apply-transition.js'
import type { AppDeps } from './deps.js'
import { endCheckouts } from './end-checkouts.js'
import type { Invoice } from '../domain/invoice.js'
import { holdAtProvider, recordSettled, settleAtProvider, type HoldAtProvider } from './held-payment.js'

/**
 * The clock's transitions (docs/api.md#statuses): pending invoices past `expired_at` → expired, and holds older than the
 * hold lifetime → failed. Each invoice is moved by a compare-and-set with its event in one transaction, so a
 * sweep that runs twice (a restart, a second instance) moves an invoice once. Returns how many it moved.
 */
export async function expireDueInvoices(
  deps: TransitionDeps & Pick<AppDeps, 'providers'>,
  batch = 200,
): Promise<number> {
  const now = deps.clock.now()
  const expired = await deps.store.transaction(async (tx) => {
    const expired: Invoice[] = []
    for (const inv of await tx.invoices.listExpiredPending(now, batch)) {
      if (await moveQuietly(() => transitionIn(tx, deps, () => tx.invoices.findById(inv.id), 'expired', now)))
        expired.push(inv)
    }
    return expired
  })
  if (expired.length > 0) deps.eventSignal.notify()
  await endCheckouts(deps, expired)
  return expired.length
}

/**
 * Holds older than the hold lifetime → failed, their funds released at the provider first, as a merchant's
 * cancel does: failing the invoice alone would leave the buyer's funds authorised. Each hold is released and then
 * moved (hold → failed only) in a transaction of its own. A hold the provider will not release (it is down, or
 * the hold was captured meanwhile, whose capture then moves it to paid) stays a hold and is tried again on the
 * next sweep; the sweep reports it after the others are done.
 */
export async function failStaleHolds(
  deps: TransitionDeps & Pick<AppDeps, 'providers' | 'holdLifetime'>,
  batch = 200,
): Promise<number> {
  const now = deps.clock.now()
  const heldBefore = new Date(now.getTime() - deps.holdLifetime * 1000)
  const stale = await deps.store.transaction((tx) => tx.invoices.listStaleHolds(heldBefore, batch))
  let moved = 0
  const refused: unknown[] = []
  for (const inv of stale) {
    let hold: HoldAtProvider
    try {
      hold = await holdAtProvider(deps, inv, 'release')
      await settleAtProvider(hold, 'release')
    } catch (err) {
      refused.push(err)
      continue
    }
    if (await moveQuietly(() => transitionById(deps, inv.id, 'failed', { onlyFrom: ['hold'] }))) {
      moved += 1
      await recordSettled(deps, hold.attempt, 'canceled')
    }
  }
  if (refused.length > 0) {
    throw new Error(
      `the provider did not release ${refused.length} of ${stale.length} stale holds (${moved} failed); they stay holds until a later sweep`,
      { cause: refused[0] },
    )
  }
  return moved
}

/** Another writer may have settled the invoice first: that is not an error for a sweeper. */
async function moveQuietly(move: () => Promise<unknown>): Promise<boolean> {
  try {
    await move()
    return true
  } catch (err) {
    if (err instanceof AppError && (err.code === 'invalid_transition' || err.code === 'invoice_not_found')) return false
    throw err
  }
}
