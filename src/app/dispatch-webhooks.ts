import type { ClaimedDelivery, ClaimShare, DeliveryAttempt } from '../domain/delivery.js'
import { nextStep, type NextStep } from '../domain/webhook-policy.js'
import type { AttemptResult } from '../ports/webhook-metrics.js'
import type { AppDeps } from './deps.js'
import { attemptError, attemptResult, sendSigned } from './webhook-request.js'

export type DispatchDeps = Pick<AppDeps, 'store' | 'clock' | 'newId' | 'webhooks'>

/** A claim outlives its attempt's whole budget by this margin; past it the dispatcher is presumed dead (a crash). */
export const LEASE_MARGIN_MS = 30_000

/** An attempt that has been made (the receiver answered, or did not) and is not yet recorded. */
export interface FinishedAttempt {
  readonly claim: ClaimedDelivery
  readonly attempt: DeliveryAttempt
  readonly result: AttemptResult
  /** What the retry policy decided, at the end of the attempt. */
  readonly step: NextStep
}

export type SendOutcome =
  | { readonly kind: 'finished'; readonly finished: FinishedAttempt }
  /** Aborted by a shutdown before an answer: not an attempt; the claim is to be given back. */
  | { readonly kind: 'aborted'; readonly claim: ClaimedDelivery }

/**
 * One attempt of a claimed delivery: sign and send the event's fixed body, and let the pure retry policy decide
 * what follows. Nothing is written here: `dispatchCycle` records attempts in batches.
 */
export async function sendClaimed(
  deps: DispatchDeps,
  claim: ClaimedDelivery,
  signal?: AbortSignal,
): Promise<SendOutcome> {
  const startedAt = deps.clock.now()
  const res = await sendSigned(deps, {
    merchantId: claim.merchantId,
    messageId: claim.eventId,
    url: claim.url,
    body: claim.payload,
    at: startedAt,
    ...(signal !== undefined && { signal }),
  })
  if (res.aborted) return { kind: 'aborted', claim }
  const result = attemptResult(res)
  deps.webhooks.metrics.attempt(result, res.latencyMs)
  const step = nextStep({
    attemptsMade: claim.attemptCount + 1,
    statusCode: res.statusCode,
    endedAt: deps.clock.now(),
    schedule: deps.webhooks.retrySchedule,
    random: deps.webhooks.random(),
  })
  const attempt: DeliveryAttempt = {
    id: deps.newId(),
    at: startedAt,
    statusCode: res.statusCode,
    latencyMs: res.latencyMs,
    error: attemptError(res),
  }
  return { kind: 'finished', finished: { claim, attempt, result, step } }
}

export interface RecordedAttempt extends FinishedAttempt {
  /** False when the delivery changed hands meanwhile (a redelivery): the attempt is logged, its state left alone. */
  readonly settled: boolean
}

export interface CycleInput {
  readonly finished: readonly FinishedAttempt[]
  /** Claims to give back without an attempt (shutdown). */
  readonly released: readonly ClaimedDelivery[]
  /** What to claim: the free slots (0 to claim none) and each merchant's share of them (`takeFairShare`). */
  readonly share: ClaimShare
}

/**
 * One turn of the dispatcher, in ONE transaction: record the attempts that ended (each with its delivery's next
 * state, compare-and-set on the claim), give back released claims, then claim what is due now — including the
 * next event of an invoice whose earlier delivery just ended (docs/webhooks.md#ordering). Under load one transaction serves
 * many deliveries; idle, a webhook costs two (its claim, its result with the next claim).
 */
export interface CycleOutput {
  readonly recorded: RecordedAttempt[]
  readonly claimed: ClaimedDelivery[]
  /**
   * When the claim took everything due (it did not fill its free slots): the next time a delivery comes due, or null
   * when none is pending. The dispatcher wakes for it: what was pending before a restart, a first attempt the
   * schedule delays, another instance's retries. Without it they waited for the poll, up to `pollMs` late.
   */
  readonly nextDueAt: Date | null
}

export async function dispatchCycle(deps: DispatchDeps, input: CycleInput): Promise<CycleOutput> {
  const now = deps.clock.now()
  const leaseUntil = new Date(now.getTime() + deps.webhooks.timeoutMs + LEASE_MARGIN_MS)
  const out = await deps.store.transaction(async (tx) => {
    const recorded: RecordedAttempt[] = []
    for (const f of input.finished) {
      await tx.deliveries.addAttempt(f.claim.id, f.attempt)
      const settled = await tx.deliveries.settle(f.claim, {
        status: f.step.status,
        attemptCount: f.claim.attemptCount + 1,
        nextAttemptAt: f.step.nextAttemptAt,
        updatedAt: now,
      })
      recorded.push({ ...f, settled })
    }
    for (const claim of input.released) await tx.deliveries.release(claim)
    const claimed = input.share.limit > 0 ? await tx.deliveries.claimDue(now, leaseUntil, input.share) : []
    const nextDueAt = input.share.limit > claimed.length ? await tx.deliveries.nextAttemptAfter(now) : null
    return { recorded, claimed, nextDueAt }
  })
  for (const r of out.recorded)
    if (r.settled && r.step.status !== 'pending') deps.webhooks.metrics.delivery(r.step.status)
  return out
}

/** For the queue gauges, read on each metrics scrape. */
export async function webhookQueueStats(
  deps: Pick<AppDeps, 'store' | 'clock'>,
): Promise<{ pending: number; oldestDueAgeSeconds: number }> {
  const now = deps.clock.now()
  const stats = await deps.store.deliveries.queueStats(now)
  const age = stats.oldestDueAt === null ? 0 : Math.max(0, now.getTime() - stats.oldestDueAt.getTime()) / 1000
  return { pending: stats.pending, oldestDueAgeSeconds: age }
}
