import { takeToken, type Bucket } from '../../domain/token-bucket.js'
import type { LimitDecision, RateLimiter } from '../../ports/rate-limiter.js'

export interface RateLimitOptions {
  /** Sustained requests a second per API key. */
  readonly rps: number
  /** Burst size per API key. */
  readonly burst: number
  /** Failed authentications a minute per client address. */
  readonly authFailLimit: number
  readonly now: () => number
  /** Entries kept at most per map; the oldest go first (an attacker cannot grow memory without bound). */
  readonly maxEntries?: number
}

const MINUTE = 60_000

/** One instance's limits, in process memory. */
export function createMemoryRateLimiter(opts: RateLimitOptions): RateLimiter {
  const max = opts.maxEntries ?? 100_000
  const buckets = new Map<string, Bucket>()
  const failures = new Map<string, { count: number; windowStart: number }>()
  const remember = <V>(map: Map<string, V>, key: string, value: V): void => {
    map.delete(key)
    if (map.size >= max) map.delete(map.keys().next().value as string)
    map.set(key, value)
  }
  const windowOf = (address: string, now: number) => {
    const w = failures.get(address)
    return w === undefined || now - w.windowStart >= MINUTE ? { count: 0, windowStart: now } : w
  }
  /** The address's window as a decision: refused once `count` failures reach the limit. */
  const addressDecision = (count: number, windowStart: number, now: number): LimitDecision => {
    const reset = Math.max(1, Math.ceil((windowStart + MINUTE - now) / 1000))
    return decision(count < opts.authFailLimit, opts.authFailLimit, Math.max(0, opts.authFailLimit - count), reset)
  }

  return {
    async takeForKey(keyId, address) {
      const now = opts.now()
      const w = windowOf(address, now)
      if (w.count >= opts.authFailLimit) return { by: 'address', decision: addressDecision(w.count, w.windowStart, now) }
      const d = takeToken(buckets.get(keyId), now, opts.rps, opts.burst)
      remember(buckets, keyId, d.bucket)
      return {
        by: 'key',
        decision: {
          allowed: d.allowed,
          limit: opts.burst,
          remaining: d.remaining,
          resetSeconds: Math.ceil(d.resetMs / 1000),
          retryAfterSeconds: Math.max(1, Math.ceil(d.retryAfterMs / 1000)),
        },
      }
    },
    async authBlocked(address) {
      const now = opts.now()
      const w = windowOf(address, now)
      return addressDecision(w.count, w.windowStart, now)
    },
    async recordAuthFailure(address) {
      const now = opts.now()
      const w = windowOf(address, now)
      remember(failures, address, { count: w.count + 1, windowStart: w.windowStart })
      // judged on the count before this failure: was the address still allowed to try?
      return addressDecision(w.count, w.windowStart, now)
    },
    async close() {},
  }
}

function decision(allowed: boolean, limit: number, remaining: number, resetSeconds: number): LimitDecision {
  return { allowed, limit, remaining, resetSeconds, retryAfterSeconds: resetSeconds }
}
