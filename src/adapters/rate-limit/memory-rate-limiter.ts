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

/** How often at most a key in use moves to the recent end of its map (below). */
const REORDER_EVERY_MS = 1000

/**
 * Values by key, at most `max` of them; when full, the key used longest ago goes first (an attacker cannot grow
 * memory without bound). A Map's order is its insertion order, so "used" means moved to the end: deleted and set
 * again. That pair makes V8 rebuild the map's hash table, and for a map that has lived long enough to be in the
 * old generation the new table is allocated there too — once per request, the old generation grew by megabytes
 * a second and a full garbage collection ran every ~2 s under load (found with V8's sampling heap profiler). So a
 * key moves at most once per REORDER_EVERY_MS; in between, its value is replaced in place, which allocates
 * nothing. The order is then the last move's, at most that long out of date.
 */
class RecentlyUsed<V> {
  readonly #slots = new Map<string, { value: V; movedAt: number }>()
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.#slots.get(key)?.value
  }

  put(key: string, value: V, now: number): void {
    const slot = this.#slots.get(key)
    if (slot !== undefined && now - slot.movedAt < REORDER_EVERY_MS && now >= slot.movedAt) {
      slot.value = value
      return
    }
    this.#slots.delete(key)
    if (this.#slots.size >= this.max) this.#slots.delete(this.#slots.keys().next().value as string)
    this.#slots.set(key, { value, movedAt: now })
  }
}

/** One instance's limits, in process memory: every decision made at once (no promise; ports/rate-limiter.ts). */
export function createMemoryRateLimiter(opts: RateLimitOptions): RateLimiter {
  const max = opts.maxEntries ?? 100_000
  const buckets = new RecentlyUsed<Bucket>(max)
  const failures = new RecentlyUsed<{ count: number; windowStart: number }>(max)
  const windowOf = (address: string, now: number) => {
    const w = failures.get(address)
    // a clock that stepped back starts a new window rather than stretching this one by the step
    return w === undefined || now - w.windowStart >= MINUTE || now < w.windowStart ? { count: 0, windowStart: now } : w
  }
  /** The address's window as a decision: refused once `count` failures reach the limit. */
  const addressDecision = (count: number, windowStart: number, now: number): LimitDecision => {
    const reset = Math.max(1, Math.ceil((windowStart + MINUTE - now) / 1000))
    return decision(count < opts.authFailLimit, opts.authFailLimit, Math.max(0, opts.authFailLimit - count), reset)
  }

  return {
    takeForKey(keyId, address) {
      const now = opts.now()
      const w = windowOf(address, now)
      if (w.count >= opts.authFailLimit)
        return { by: 'address', decision: addressDecision(w.count, w.windowStart, now) }
      const d = takeToken(buckets.get(keyId), now, opts.rps, opts.burst)
      buckets.put(keyId, d.bucket, now)
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
    authBlocked(address) {
      const now = opts.now()
      const w = windowOf(address, now)
      return addressDecision(w.count, w.windowStart, now)
    },
    recordAuthFailure(address) {
      const now = opts.now()
      const w = windowOf(address, now)
      failures.put(address, { count: w.count + 1, windowStart: w.windowStart }, now)
      // judged on the count before this failure: was the address still allowed to try?
      return addressDecision(w.count, w.windowStart, now)
    },
    async close() {},
  }
}

function decision(allowed: boolean, limit: number, remaining: number, resetSeconds: number): LimitDecision {
  return { allowed, limit, remaining, resetSeconds, retryAfterSeconds: resetSeconds }
}
