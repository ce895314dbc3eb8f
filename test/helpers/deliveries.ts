/**
 * Webhook deliveries that failed once, without a receiver: every delivery due now is claimed as the dispatcher
 * would, given an attempt the endpoint answered `statusCode`, and left pending for a retry `retryInMs` later.
 */
import type { ClaimShare } from '../../src/domain/delivery.js'
import type { TestApp } from './build-test-app.js'

export async function failDueDeliveries(t: TestApp, opts: { statusCode: number; retryInMs: number }): Promise<void> {
  const now = t.clock.now()
  const share: ClaimShare = { limit: 10, perMerchant: 10, perUnproven: 10, inFlight: new Map(), answering: new Set() }
  await t.rt.store.transaction(async (tx) => {
    for (const claim of await tx.deliveries.claimDue(now, new Date(now.getTime() + 60_000), share)) {
      await tx.deliveries.addAttempt(claim.id, {
        id: crypto.randomUUID(),
        at: now,
        statusCode: opts.statusCode,
        latencyMs: 84,
        error: `answered ${opts.statusCode}`,
      })
      await tx.deliveries.settle(claim, {
        status: 'pending',
        attemptCount: 1,
        nextAttemptAt: new Date(now.getTime() + opts.retryInMs),
        updatedAt: now,
      })
    }
  })
}
