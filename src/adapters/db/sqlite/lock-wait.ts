/**
 * Waiting for a SQLite lock WITHOUT blocking the event loop.
 *
 * better-sqlite3 is synchronous: with SQLite's busy_timeout set, a statement that finds the database locked by
 * another process (the CLI, a backup tool, anything holding `BEGIN EXCLUSIVE`) sleeps inside the call, and the
 * whole process — every other request, /healthz, the workers — stands still for up to the timeout, once per
 * queued write. So the connections run with busy_timeout = 0 and the waiting happens here, on timers.
 *
 * And once a wait has run out, the lock is taken to be lost (a fault, not contention): until some statement gets
 * through again, each attempt tries once and fails at once (503 `unavailable`) instead of waiting its full time
 * behind the others. The first success closes the breaker; nothing needs a restart.
 */

/** SQLITE_BUSY and its extended codes: the lock is held by another connection right now. */
export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'))
}

const MAX_STEP_MS = 25

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export class LockWait {
  #lost = false

  /** @param waitMs how long one attempt may wait for the lock before it fails (the configured busy timeout). */
  constructor(private readonly waitMs: number) {}

  /** True after a wait ran out, until a statement gets through again. */
  get lost(): boolean {
    return this.#lost
  }

  /**
   * Runs `fn` (one synchronous SQLite call); while it fails with SQLITE_BUSY, tries again on a timer with a short
   * back-off until `waitMs` has passed — or only once while the lock is lost. Other errors pass through at once.
   * `maxWaitMs` caps the wait of this call (a readiness probe answers quickly).
   */
  async run<T>(fn: () => T, maxWaitMs = Number.POSITIVE_INFINITY): Promise<T> {
    const budget = this.#lost ? 0 : Math.min(this.waitMs, maxWaitMs)
    const deadline = performance.now() + budget
    let step = 1
    for (;;) {
      try {
        const result = fn()
        this.#lost = false
        return result
      } catch (err) {
        if (!isSqliteBusy(err)) throw err
        const left = deadline - performance.now()
        if (left <= 0) {
          // a capped wait (a probe) that ran out proves less: only a full wait declares the lock lost
          if (budget >= this.waitMs) this.#lost = true
          throw err
        }
        await sleep(Math.min(step, left))
        step = Math.min(step * 2, MAX_STEP_MS)
      }
    }
  }
}

/** A FIFO lock: the releaser hands the lock straight to the next waiter (no thundering herd under load). */
export class Mutex {
  #locked = false
  readonly #waiters: Array<() => void> = []

  lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true
      return Promise.resolve()
    }
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  /** `lock()`, giving up after `ms`: resolves true holding the lock, or false without it. */
  lockWithin(ms: number): Promise<boolean> {
    if (!this.#locked) {
      this.#locked = true
      return Promise.resolve(true)
    }
    return new Promise((resolve) => {
      const waiter = (): void => {
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => {
        const at = this.#waiters.indexOf(waiter)
        if (at >= 0) this.#waiters.splice(at, 1)
        resolve(false)
      }, ms)
      this.#waiters.push(waiter)
    })
  }

  unlock(): void {
    const next = this.#waiters.shift()
    if (next === undefined) this.#locked = false
    else next()
  }
}
