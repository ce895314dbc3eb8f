/**
 * The retry policy of webhook deliveries as pure functions (docs/webhooks.md#retries; docs/architecture.md#retries-are-rows-not-sleeps: a pure function of the
 * attempt number and the configured schedule). Time and randomness are inputs.
 *
 * `schedule` is WEBHOOK_RETRY_SCHEDULE, "seconds before each attempt": entry 0 is the delay of the first attempt
 * after the event (0 = at once), entry k the delay after the end of attempt k. After the last entry's attempt
 * the delivery is failed. The default `0,5,300,1800,7200,18000,36000,36000` makes eight attempts over ~28 h.
 */

/** ±10 % around each retry delay, so receivers coming back after an outage are not hit by every retry at once. */
export const JITTER = 0.1

export type AttemptVerdict =
  /** A 2xx answer. */
  | 'succeeded'
  /** 410 Gone: the receiver asks us to stop; no further attempts. */
  | 'gone'
  /** Anything else (no answer, 1xx, 3xx — redirects are not followed —, 4xx, 5xx): retried on the schedule. */
  | 'retry'

export function verdictOf(statusCode: number | null): AttemptVerdict {
  if (statusCode !== null && statusCode >= 200 && statusCode <= 299) return 'succeeded'
  if (statusCode === 410) return 'gone'
  return 'retry'
}

/** Milliseconds from the event to the first attempt (entry 0, no jitter: it is normally 0, "at once"). */
export function firstAttemptDelayMs(schedule: readonly number[]): number {
  return Math.round((schedule[0] ?? 0) * 1000)
}

/**
 * The delay before attempt `attemptsMade + 1`, counted from the end of attempt `attemptsMade`, with ±10 %
 * jitter drawn from `random` in [0, 1); undefined when the schedule is exhausted.
 */
export function retryDelayMs(attemptsMade: number, schedule: readonly number[], random: number): number | undefined {
  const seconds = schedule[attemptsMade]
  if (attemptsMade < 1 || seconds === undefined) return undefined
  const factor = 1 - JITTER + 2 * JITTER * Math.min(Math.max(random, 0), 1)
  return Math.round(seconds * 1000 * factor)
}

export type NextStep =
  | { readonly status: 'succeeded'; readonly nextAttemptAt: null }
  | { readonly status: 'failed'; readonly nextAttemptAt: null; readonly reason: 'gone' | 'exhausted' }
  | { readonly status: 'pending'; readonly nextAttemptAt: Date }

/** What becomes of a delivery after its attempt number `attemptsMade` ended at `endedAt` with `statusCode`. */
export function nextStep(input: {
  readonly attemptsMade: number
  readonly statusCode: number | null
  readonly endedAt: Date
  readonly schedule: readonly number[]
  readonly random: number
}): NextStep {
  const verdict = verdictOf(input.statusCode)
  if (verdict === 'succeeded') return { status: 'succeeded', nextAttemptAt: null }
  if (verdict === 'gone') return { status: 'failed', nextAttemptAt: null, reason: 'gone' }
  const delay = retryDelayMs(input.attemptsMade, input.schedule, input.random)
  if (delay === undefined) return { status: 'failed', nextAttemptAt: null, reason: 'exhausted' }
  return { status: 'pending', nextAttemptAt: new Date(input.endedAt.getTime() + delay) }
}
