/**
 * Request limits shared by every instance through Redis (API.md B8 with REDIS_URL): one token bucket per API key
 * and one failed-authentication window per client address, whichever instance the request reaches.
 *
 * Each decision is one Lua script, so it is atomic and costs one round-trip; the scripts read Redis's own clock
 * (TIME), so the instances' clocks do not matter. Every key expires once it carries no information (a bucket when
 * it would be full again, a window when its minute is over), so Redis holds only active clients.
 *
 * When Redis cannot answer (down, unreachable, slower than `commandTimeoutMs`) the limiter FAILS OPEN to this
 * instance's in-memory limiter: a payment service keeps taking payments while a cache is down, with each instance
 * still enforcing the limits on its own share of the traffic. That is logged (at most once a minute) and counted
 * (`rate_limit_redis_fallbacks_total`); the next decision tries Redis again, so service is shared again as soon as
 * Redis is back.
 */
import { Redis, type Result } from 'ioredis'
import { Counter, type Registry } from 'prom-client'
import type { LimitDecision, RateLimiter } from '../../ports/rate-limiter.js'

// KEYS[1] bucket; ARGV rate (tokens/s), burst. The same arithmetic as domain/token-bucket.ts: a new bucket is
// full; it refills at `rate`; a request takes one whole token. Returns allowed, remaining, retry-after ms, reset ms.
const TAKE_TOKEN = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
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
local reset = math.ceil((burst - tokens) * 1000 / rate)
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], reset + 1000)
return {allowed, math.floor(tokens), retry, reset}
`

// KEYS[1] the address's window: its failure count and the milliseconds left of its minute (0 when none).
const AUTH_WINDOW = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {count, ttl}
`

// KEYS[1] the address's window: one more failure; the first one opens the minute (as does one without an expiry).
const AUTH_FAILURE = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], 60000) end
return count
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    takeToken(key: string, rate: number, burst: number): Result<[number, number, number, number], Context>
    authWindow(key: string): Result<[number, number], Context>
    authFailure(key: string): Result<number, Context>
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
  readonly onWarning: (message: string, err: unknown) => void
  /** Where the fallback counter is registered. */
  readonly registry?: Registry
  /** Prefix of every key this limiter writes (several services may share one Redis). */
  readonly keyPrefix?: string
  /** How long one decision may wait for Redis before the fallback decides. */
  readonly commandTimeoutMs?: number
}

const WARN_EVERY_MS = 60_000
const FALLBACKS = 'rate_limit_redis_fallbacks_total'

export interface RedisRateLimiter extends RateLimiter {
  /**
   * Resolves true once connected to Redis, or false after `ms` without a connection (decisions are then made by
   * the fallback until it connects). Until it resolves true, decisions are made by the fallback too.
   */
  connected(ms: number): Promise<boolean>
}

export function createRedisRateLimiter(opts: RedisRateLimitOptions): RedisRateLimiter {
  const prefix = opts.keyPrefix ?? 'invoice-service:ratelimit:'
  const redis = new Redis(opts.url, {
    // Fail fast while disconnected instead of queueing: the fallback answers at once.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 250,
    connectTimeout: 2000,
    // Reconnect for ever, backing off to one attempt every 2 s.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  })
  redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_TOKEN })
  redis.defineCommand('authWindow', { numberOfKeys: 1, lua: AUTH_WINDOW })
  redis.defineCommand('authFailure', { numberOfKeys: 1, lua: AUTH_FAILURE })

  const fallbacks =
    (opts.registry?.getSingleMetric(FALLBACKS) as Counter | undefined) ??
    new Counter({
      name: FALLBACKS,
      help: 'Rate-limit decisions made by this instance alone because Redis could not answer',
      registers: opts.registry === undefined ? [] : [opts.registry],
    })
  let lastWarning = Number.NEGATIVE_INFINITY
  const warn = (err: unknown): void => {
    const now = Date.now()
    if (now - lastWarning < WARN_EVERY_MS) return
    lastWarning = now
    opts.onWarning('Redis cannot answer: rate limits are enforced per instance until it is back', err)
  }
  // Connection errors are reported through the fallback path; without a listener ioredis would print each one.
  redis.on('error', warn)

  async function shared<T>(decide: () => Promise<T>, alone: () => Promise<T>): Promise<T> {
    try {
      return await decide()
    } catch (err) {
      fallbacks.inc()
      warn(err)
      return alone()
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
    takeForKey: (keyId) =>
      shared(
        async () => {
          const [allowed, remaining, retryMs, resetMs] = await redis.takeToken(`${prefix}key:${keyId}`, opts.rps, opts.burst)
          return {
            allowed: allowed === 1,
            limit: opts.burst,
            remaining,
            resetSeconds: Math.ceil(resetMs / 1000),
            retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)),
          }
        },
        () => opts.fallback.takeForKey(keyId),
      ),
    authBlocked: (address) =>
      shared(
        async (): Promise<LimitDecision> => {
          const [count, ttlMs] = await redis.authWindow(`${prefix}authfail:${address}`)
          const reset = Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : 60_000) / 1000))
          const remaining = Math.max(0, opts.authFailLimit - count)
          return { allowed: count < opts.authFailLimit, limit: opts.authFailLimit, remaining, resetSeconds: reset, retryAfterSeconds: reset }
        },
        () => opts.fallback.authBlocked(address),
      ),
    recordAuthFailure: (address) =>
      shared(
        async () => {
          await redis.authFailure(`${prefix}authfail:${address}`)
        },
        () => opts.fallback.recordAuthFailure(address),
      ),
    async close() {
      redis.disconnect()
      await opts.fallback.close()
    },
  }
}
