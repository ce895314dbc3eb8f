import { AppError } from '../domain/errors.js'
import type { TransitionDeps } from './apply-transition.js'
import { transitionIn } from './apply-transition.js'

/**
 * The clock's transitions (API.md B5): pending invoices past `expired_at` → expired, and holds older than the
 * hold lifetime → failed. Each invoice is moved by a compare-and-set with its event in one transaction, so a
 * sweep that runs twice (a restart, a second instance) moves an invoice once. Returns how many it moved.
 */
export async function expireDueInvoices(deps: TransitionDeps, batch = 200): Promise<number> {
  const now = deps.clock.now()
  const moved = await deps.store.transaction(async (tx) => {
    let moved = 0
    for (const inv of await tx.invoices.listExpiredPending(now, batch)) {
      if (await moveQuietly(() => transitionIn(tx, deps, () => tx.invoices.findById(inv.id), 'expired', now))) moved += 1
    }
    return moved
  })
  if (moved > 0) deps.eventSignal.notify()
  return moved
}

export async function failStaleHolds(deps: TransitionDeps & { holdLifetimeSeconds: number }, batch = 200): Promise<number> {
  const now = deps.clock.now()
  const heldBefore = new Date(now.getTime() - deps.holdLifetimeSeconds * 1000)
  const moved = await deps.store.transaction(async (tx) => {
    let moved = 0
    for (const inv of await tx.invoices.listStaleHolds(heldBefore, batch)) {
      if (await moveQuietly(() => transitionIn(tx, deps, () => tx.invoices.findById(inv.id), 'failed', now, ['hold']))) moved += 1
    }
    return moved
  })
  if (moved > 0) deps.eventSignal.notify()
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
