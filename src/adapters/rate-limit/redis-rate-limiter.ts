/**
 * Request limits shared by every instance through Redis (docs/api.md#limits with REDIS_URL: docs/scaling.md#rate-limits-shared-through-redis): one token bucket per API key
 * and one failed-authentication window per client address, whichever instance the request reaches.
 *
 * Each decision is one Lua script (EVALSHA, cached by ioredis' defineCommand), so it is atomic and costs one
 * round-trip; a keyed request makes one decision. The scripts read Redis's own clock (TIME), so the instances'
 * clocks do not matter. Every key expires once it carries no information (a bucket when it would be full again, a
 * window when its minute is over), so Redis holds only active clients. Keys hold the API key's id or the client
 * address, never a key or its hash.
 *
 * `authBlocked` answers without a round-trip from the addresses this instance has learnt are blocked (from the
 * scripts' answers); an address blocked through other instances is refused by the script of the same request.
 *
 * When Redis cannot answer (down, unreachable, slower than `commandTimeoutMs`) the limiter FAILS OPEN to this
 * instance's in-memory limiter: a payment service keeps taking payments while a cache is down, with each instance
 * still enforcing the limits on its own share of the traffic. That is logged (at most once a minute) and counted
 * (`rate_limit_redis_fallbacks_total`). After a failure, decisions skip Redis for a second (or until a new connection
 * is ready), so a Redis that stopped answering costs at most one slow request a second; limits are shared again as
 * soon as it answers (logged once).
 */
import { Redis, type Result } from 'ioredis'
import { Counter, type Registry } from 'prom-client'
import type { Admission, LimitDecision, RateLimiter } from '../../ports/rate-limiter.js'
import { andThen, type MaybePromise } from '../../domain/maybe-promise.js'

// KEYS[1] the address's failure window, KEYS[2] the key's bucket; ARGV rate (tokens/s), burst, auth-fail limit.
// An address past its limit is refused without touching the bucket: {0, failures, window ms left, 0, 0}.
// Otherwise the arithmetic of domain/token-bucket.ts: a new bucket is full; it refills at `rate`; a request takes
// one whole token: {1, allowed, remaining, retry-after ms, ms until full}.
const ADMIT = `
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
if failures >= tonumber(ARGV[3]) then
  local left = redis.call('PTTL', KEYS[1])
  if left < 0 then left = 60000 end
  return {0, failures, left, 0, 0}
end
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[2], 'tokens', 'at')
local tokens = burst
if state[1] then
  local elapsed = math.max(0, now - tonumber(state[2]))
  tokens = math.min(burst, tonumber(state[1]) + elapsed * rate / 1000)
end
local allowed = 0
if tokens >= 1 then
  allowed = 1
  tokens = tokens - 1
end
local full = math.ceil((burst - tokens) * 1000 / rate)
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[2], full + 1000)
return {1, allowed, math.floor(tokens), retry, full}
`

// KEYS[1] the address's window: one more failure; the first one opens the minute (as does one without an expiry).
// Returns {failures, window ms left}.
const AUTH_FAILURE = `
local failures = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  left = 60000
  redis.call('PEXPIRE', KEYS[1], left)
end
return {failures, left}
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    admit(
      window: string,
      bucket: string,
      rate: number,
      burst: number,
      authFailLimit: number,
    ): Result<[number, number, number, number, number], Context>
    authFailure(window: string): Result<[number, number], Context>
  }
}

export interface RedisRateLimitOptions {
  readonly url: string
  /** Sustained requests a second per API key. */
  readonly rps: number
  /** Burst size per API key. */
  readonly burst: number
  /** Failed authentications a minute per client address. */
  readonly authFailLimit: number
  /** Used while Redis cannot answer: this instance's own limits. */
  readonly fallback: RateLimiter
  /** Where the limiter reports Redis going (`warn`, at most once a minute) and coming back (`info`). */
  readonly log: { warn(message: string, err: unknown): void; info(message: string): void }
  /** Where the fallback counter is registered. */
  readonly registry?: Registry
  /** Prefix of every key this limiter writes (several services may share one Redis). */
  readonly keyPrefix?: string
  /** How long one decision may wait for Redis before the fallback decides. */
  readonly commandTimeoutMs?: number
  /** Addresses remembered at most (an attacker cannot grow memory without bound). */
  readonly maxEntries?: number
}

const WARN_EVERY_MS = 60_000
/** After Redis failed to answer, decisions go straight to the fallback this long. */
const SKIP_AFTER_FAILURE_MS = 1000
const FALLBACKS = 'rate_limit_redis_fallbacks_total'
export const DEFAULT_KEY_PREFIX = 'invoice-service:ratelimit:'

export interface RedisRateLimiter extends RateLimiter {
  /**
   * Resolves true once connected to Redis, or false after `ms` without a connection. Until connected, decisions
   * are made by the fallback.
   */
  connected(ms: number): Promise<boolean>
}

export function createRedisRateLimiter(opts: RedisRateLimitOptions): RedisRateLimiter {
  const prefix = opts.keyPrefix ?? DEFAULT_KEY_PREFIX
  const limit = opts.authFailLimit
  const redis = new Redis(opts.url, {
    // Fail fast while disconnected instead of queueing: the fallback answers at once.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 250,
    connectTimeout: 2000,
    // Reconnect for ever, backing off to one attempt every 2 s.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  })
  redis.defineCommand('admit', { numberOfKeys: 2, lua: ADMIT })
  redis.defineCommand('authFailure', { numberOfKeys: 1, lua: AUTH_FAILURE })

  const fallbacks =
    (opts.registry?.getSingleMetric(FALLBACKS) as Counter | undefined) ??
    new Counter({
      name: FALLBACKS,
      help: 'Rate-limit decisions made by this instance alone because Redis could not answer',
      registers: opts.registry === undefined ? [] : [opts.registry],
    })

  let lastWarning = Number.NEGATIVE_INFINITY
  let warned = false
  let skipUntil = 0
  const warn = (err: unknown): void => {
    const now = Date.now()
    if (now - lastWarning < WARN_EVERY_MS) return
    lastWarning = now
    warned = true
    opts.log.warn('Redis cannot answer: rate limits are enforced per instance until it is back', err)
  }
  // Connection errors are reported through the fallback path; without a listener ioredis would print each one.
  redis.on('error', warn)
  // a new connection is worth trying at once
  redis.on('ready', () => {
    skipUntil = 0
  })

  async function shared<T>(decide: () => Promise<T>, alone: () => MaybePromise<T>): Promise<T> {
    if (redis.status !== 'ready') {
      warn(new Error(`no connection to Redis (${redis.status})`))
    } else if (Date.now() >= skipUntil) {
      try {
        const result = await decide()
        if (warned) {
          warned = false
          opts.log.info('Redis answers again: rate limits are shared by every instance again')
        }
        return result
      } catch (err) {
        skipUntil = Date.now() + SKIP_AFTER_FAILURE_MS
        // A timeout may mean a dead link that never reports an error (a peer gone without a reset): reconnect.
        if (err instanceof Error && err.message === 'Command timed out') redis.disconnect(true)
        warn(err)
      }
    }
    fallbacks.inc()
    return alone()
  }

  // What this instance has learnt of addresses' failure windows from the scripts, for authBlocked.
  const known = new Map<string, { failures: number; untilMs: number }>()
  const maxKnown = opts.maxEntries ?? 100_000
  const learn = (address: string, failures: number, msLeft: number): void => {
    known.delete(address)
    if (known.size >= maxKnown) known.delete(known.keys().next().value as string)
    known.set(address, { failures, untilMs: Date.now() + msLeft })
  }
  const addressDecision = (failures: number, msLeft: number): LimitDecision => {
    const reset = Math.max(1, Math.ceil(msLeft / 1000))
    return {
      allowed: failures < limit,
      limit,
      remaining: Math.max(0, limit - failures),
      resetSeconds: reset,
      retryAfterSeconds: reset,
    }
  }

  return {
    connected(ms) {
      if (redis.status === 'ready') return Promise.resolve(true)
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          redis.off('ready', onReady)
          resolve(false)
        }, ms)
        const onReady = (): void => {
          clearTimeout(timer)
          resolve(true)
        }
        redis.once('ready', onReady)
      })
    },
    takeForKey: (keyId, address) =>
      shared(
        async (): Promise<Admission> => {
          const [open, a, b, c, d] = await redis.admit(
            `${prefix}authfail:${address}`,
            `${prefix}key:${keyId}`,
            opts.rps,
            opts.burst,
            limit,
          )
          if (open === 0) {
            learn(address, a, b)
            return { by: 'address', decision: addressDecision(a, b) }
          }
          return {
            by: 'key',
            decision: {
              allowed: a === 1,
              limit: opts.burst,
              remaining: b,
              resetSeconds: Math.ceil(d / 1000),
              retryAfterSeconds: Math.max(1, Math.ceil(c / 1000)),
            },
          }
        },
        () => opts.fallback.takeForKey(keyId, address),
      ),
    // without I/O: what this instance counted alone while Redis was out, and what it has learnt from the scripts
    authBlocked: (address) =>
      andThen(opts.fallback.authBlocked(address), (alone) => {
        const k = known.get(address)
        if (!alone.allowed || k === undefined) return alone
        const msLeft = k.untilMs - Date.now()
        if (msLeft <= 0) {
          known.delete(address)
          return alone
        }
        return addressDecision(k.failures, msLeft)
      }),
    recordAuthFailure: (address) =>
      shared(
        async () => {
          const [failures, msLeft] = await redis.authFailure(`${prefix}authfail:${address}`)
          learn(address, failures, msLeft)
          // judged on the count before this failure: was the address still allowed to try?
          return addressDecision(failures - 1, msLeft)
        },
        () => opts.fallback.recordAuthFailure(address),
      ),
    async close() {
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect())
      else redis.disconnect()
      await opts.fallback.close()
    },
  }
}
