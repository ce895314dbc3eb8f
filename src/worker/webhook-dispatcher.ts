import type {
  CycleInput,
  CycleOutput,
  FinishedAttempt,
  RecordedAttempt,
  SendOutcome,
} from '../app/dispatch-webhooks.js'
import { unprovenShare, type ClaimedDelivery } from '../domain/delivery.js'
import type { MerchantId } from '../domain/ids.js'

/** A timer may fire a millisecond early (libuv rounds): a little late beats a claim that finds nothing due. */
const WAKE_MARGIN_MS = 5
/** Longer waits are left to the poll: setTimeout cannot wait longer than 2^31-1 ms (it would fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1

/** The logger the dispatcher needs (pino's shape). */
export interface DispatcherLog {
  debug(obj: object, msg: string): void
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface WebhookDispatcherOptions {
  /** Records ended attempts and released claims, then claims due deliveries: one transaction (app/dispatch-webhooks.ts). */
  cycle(input: CycleInput): Promise<CycleOutput>
  /** One attempt of a claimed delivery, not yet recorded (app/dispatch-webhooks.ts sendClaimed). */
  send(claim: ClaimedDelivery, signal: AbortSignal): Promise<SendOutcome>
  /** The doorbell rung when an event commits. */
  subscribe(listener: () => void): () => void
  /** The clock the deliveries' times are written with. */
  now(): Date
  /** Deliveries in flight at once (each of a different invoice: only the oldest pending one of an invoice is due). */
  readonly concurrency: number
  /**
   * Deliveries of one merchant in flight at once that it always may have while its endpoint answers: its share of
   * `concurrency`, so one merchant cannot hold them all; beyond it only then (`takeBeyondShare`). Until its
   * endpoint answers here, and after an attempt fails, a quarter of it (`unprovenShare`).
   */
  readonly merchantConcurrency: number
  /** Fallback poll: other instances' events, lost rings, expired leases. This process's own retries set timers. */
  readonly pollMs: number
  readonly log: DispatcherLog
}

export interface WebhookDispatcher {
  /**
   * Stops claiming; attempts under way get `graceMs` to finish, then are aborted and their claims given back
   * (no attempt is counted; the next start sends them again). Ended attempts are recorded before it resolves.
   */
  stop(graceMs: number): Promise<void>
}

/**
 * The webhook dispatcher loop (docs/architecture.md#retries-are-rows-not-sleeps: retries are rows, not sleeps). It holds nothing that matters:
 * the rows say what is due, so a restart resumes from them. A cycle — record what ended, claim what is due, in
 * one transaction — runs when an event commits (the doorbell), when attempts end (their slots are free and the
 * next event of their invoice may be due), when a retry comes due (one timer, for the earliest known), and on a
 * slow poll; never after a fixed delay on the happy path. One cycle runs at a time; what arrives meanwhile is
 * taken by the next, so under load a transaction serves many deliveries.
 */
export function startWebhookDispatcher(opts: WebhookDispatcherOptions): WebhookDispatcher {
  const inFlight = new Map<string, { merchantId: MerchantId; abort: AbortController; done: Promise<void> }>()
  let finished: FinishedAttempt[] = []
  let released: ClaimedDelivery[] = []
  let cycling: Promise<void> | undefined
  let again = false
  let stopped = false
  /**
   * Merchants whose last attempt here succeeded: they have the whole share, and may use free slots beyond it
   * (`takeBeyondShare`); the others have the unproven share.
   */
  const answering = new Set<MerchantId>()
  const perUnproven = unprovenShare(opts.merchantConcurrency)
  /** Timers for retries coming due, by the end of their time slot (`wakeSlot`). */
  const wakeTimers = new Map<number, NodeJS.Timeout>()

  const kick = (): void => {
    if (cycling !== undefined) {
      again = true // coalesce: one more cycle after the running one
      return
    }
    again = false
    cycling = cycle().finally(() => {
      cycling = undefined
      if (again) kick()
    })
  }

  const cycle = async (): Promise<void> => {
    const limit = stopped ? 0 : opts.concurrency - inFlight.size
    if (finished.length === 0 && released.length === 0 && limit <= 0) return
    const byMerchant = new Map<MerchantId, number>()
    for (const { merchantId } of inFlight.values()) byMerchant.set(merchantId, (byMerchant.get(merchantId) ?? 0) + 1)
    const input = {
      finished,
      released,
      share: {
        limit: Math.max(0, limit),
        perMerchant: opts.merchantConcurrency,
        perUnproven,
        inFlight: byMerchant,
        answering: new Set(answering),
      },
    }
    finished = []
    released = []
    let out: Awaited<ReturnType<WebhookDispatcherOptions['cycle']>>
    try {
      out = await opts.cycle(input)
    } catch (err) {
      // storage hiccup: keep the results for the next cycle (the poll brings one); nothing due is lost
      finished = [...input.finished, ...finished]
      released = [...input.released, ...released]
      opts.log.error({ err }, 'webhook dispatcher: recording attempts or claiming deliveries failed; will retry')
      return
    }
    for (const r of out.recorded) report(r)
    for (const claim of out.claimed) start(claim)
    if (out.nextDueAt !== null) wakeFor(out.nextDueAt)
  }

  const start = (claim: ClaimedDelivery): void => {
    const abort = new AbortController()
    // the slot is freed and the result queued together, so a cycle always has room to refill what it records
    const end = (queue: () => void): void => {
      // this claim's own entry only: should the same delivery be claimed again meanwhile (its lease ran out), the
      // entry of that attempt stays, so what is in flight is still counted
      if (inFlight.get(claim.id)?.abort === abort) inFlight.delete(claim.id)
      queue()
      kick()
    }
    const done = opts.send(claim, abort.signal).then(
      (outcome) =>
        end(() => {
          if (outcome.kind === 'aborted') released.push(outcome.claim)
          else {
            finished.push(outcome.finished)
            if (outcome.finished.result === 'success') answering.add(claim.merchantId)
            else answering.delete(claim.merchantId)
          }
        }),
      (err: unknown) =>
        end(() => {
          // not even an attempt (e.g. the secrets could not be read): the claim lapses and the delivery is due again
          opts.log.error(
            { err, delivery_id: claim.id, event_id: claim.eventId },
            'webhook attempt failed before sending; it will be retried',
          )
        }),
    )
    inFlight.set(claim.id, { merchantId: claim.merchantId, abort, done })
  }

  // A retry of this process's attempts is claimed when it comes due, not at the next poll after it: a poll that
  // runs before it is due leaves it for the one after, up to `pollMs` late (a 5 s retry made 6 s, outside its
  // jitter). Each retry gets a timer; those that come due in one time slot share it (see `wakeSlot`).
  const wakeFor = (at: Date): void => {
    if (stopped) return
    const now = opts.now().getTime()
    const delay = at.getTime() - now
    if (delay >= MAX_TIMER_MS) return
    const slot = wakeSlot(at.getTime(), delay)
    if (wakeTimers.has(slot)) return
    const timer = setTimeout(
      () => {
        wakeTimers.delete(slot)
        kick()
      },
      Math.max(0, slot - now) + WAKE_MARGIN_MS,
    )
    timer.unref()
    wakeTimers.set(slot, timer)
  }

  const report = (r: RecordedAttempt): void => {
    const { claim, attempt, step } = r
    // the receiver's host only: a callback_url's path or query may carry the merchant's own token
    const ids = {
      delivery_id: claim.id,
      event_id: claim.eventId,
      invoice_id: claim.invoiceId,
      type: claim.type,
      host: hostOf(claim.url),
    }
    const n = claim.attemptCount + 1
    if (!r.settled) {
      opts.log.debug(
        { ...ids, status_code: attempt.statusCode },
        'webhook attempt ended after its delivery was requeued',
      )
      return
    }
    switch (step.status) {
      case 'succeeded':
        opts.log.debug(
          { ...ids, attempt: n, status_code: attempt.statusCode, latency_ms: attempt.latencyMs },
          'webhook delivered',
        )
        return
      case 'pending':
        opts.log.info(
          {
            ...ids,
            attempt: n,
            status_code: attempt.statusCode,
            error: attempt.error,
            next_attempt_at: step.nextAttemptAt.toISOString(),
          },
          'webhook attempt failed; will retry',
        )
        wakeFor(step.nextAttemptAt)
        return
      case 'failed':
        opts.log.warn(
          { ...ids, attempts: n, status_code: attempt.statusCode, error: attempt.error, reason: step.reason },
          step.reason === 'gone'
            ? 'webhook delivery failed: the endpoint answered 410 Gone'
            : 'webhook delivery failed: retry schedule exhausted',
        )
        return
    }
  }

  const unsubscribe = opts.subscribe(kick)
  const poll = setInterval(kick, opts.pollMs)
  poll.unref()
  kick() // a restart resumes whatever was pending

  return {
    async stop(graceMs) {
      stopped = true
      unsubscribe()
      clearInterval(poll)
      for (const timer of wakeTimers.values()) clearTimeout(timer)
      wakeTimers.clear()
      await cycling
      const running = [...inFlight.values()]
      if (running.length > 0) {
        const timer = setTimeout(() => {
          for (const r of running) r.abort.abort()
        }, graceMs)
        await Promise.all(running.map((r) => r.done))
        clearTimeout(timer)
      }
      // record what ended and give back what was aborted
      while (cycling !== undefined) await cycling
      if (finished.length > 0 || released.length > 0) await cycle()
    },
  }
}

/**
 * The end of the time slot a retry due at `at` (in `delayMs`) is woken at: slots are a power of two of at least
 * 8 ms and at most 1 % of the delay wide. A retry is then at most 1 % of its delay late (a 5 s one: 32 ms), and
 * retries that share a slot share a timer: an outage's thousands of retries, spread over hours, need a few hundred
 * timers for each doubling of the delay instead of one each.
 */
export function wakeSlot(at: number, delayMs: number): number {
  let width = 8
  while (width * 2 <= delayMs / 100) width *= 2
  return Math.ceil(at / width) * width
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return '(invalid url)'
  }
}
