/**
 * The RateLimiter port's contract, held by both adapters: in memory (one instance) and in Redis (shared), the
 * latter against a real redis-server. Then what only the shared one can do: one bucket across instances, keys
 * that expire, and failing open to memory while Redis is down.
 */
import { Redis } from 'ioredis'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js'
import { createRedisRateLimiter, type RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.js'
import type { RateLimiter } from '../../src/ports/rate-limiter.js'
import { SKIP_REDIS, startTestRedis, type TestRedis } from '../helpers/redis.js'

const LIMITS = { rps: 50, burst: 3, authFailLimit: 2 }
const memory = (): RateLimiter => createMemoryRateLimiter({ ...LIMITS, now: Date.now })

let redis: TestRedis | undefined
beforeAll(async () => {
  if (!SKIP_REDIS) redis = await startTestRedis()
})
afterAll(async () => redis?.stop())

const warnings: string[] = []
const connected = async (limiter: RedisRateLimiter): Promise<RedisRateLimiter> => {
  expect(await limiter.connected(5000)).toBe(true)
  return limiter
}
const shared = (opts: { registry?: Registry; prefix?: string } = {}): RedisRateLimiter =>
  createRedisRateLimiter({
    url: redis!.url,
    ...LIMITS,
    fallback: memory(),
    onWarning: (message) => warnings.push(message),
    ...(opts.registry !== undefined && { registry: opts.registry }),
    keyPrefix: opts.prefix ?? `t${Math.random().toString(36).slice(2)}:`,
  })

const adapters: Array<[string, () => RateLimiter | Promise<RateLimiter>, boolean]> = [
  ['memory', memory, false],
  ['redis', () => connected(shared()), SKIP_REDIS],
]

describe.each(adapters)('RateLimiter contract: %s', (_name, make, skip) => {
  it.skipIf(skip)('a key gets its burst, then refusals that say when to retry; other keys are apart', async () => {
    const limiter = await make()
    const decisions = [await limiter.takeForKey('k1'), await limiter.takeForKey('k1'), await limiter.takeForKey('k1')]
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true])
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0])
    expect(decisions.every((d) => d.limit === 3 && d.resetSeconds >= 1)).toBe(true)
    const refused = await limiter.takeForKey('k1')
    expect(refused.allowed).toBe(false)
    expect(refused.retryAfterSeconds).toBe(1)
    expect(refused.remaining).toBe(0)
    expect((await limiter.takeForKey('k2')).allowed).toBe(true)
    await limiter.close()
  })

  it.skipIf(skip)('tokens come back at the configured rate', async () => {
    const limiter = await make()
    for (let i = 0; i < 3; i += 1) await limiter.takeForKey('refill')
    expect((await limiter.takeForKey('refill')).allowed).toBe(false)
    await new Promise((r) => setTimeout(r, 60)) // 50 a second: about 3 tokens
    expect((await limiter.takeForKey('refill')).allowed).toBe(true)
    await limiter.close()
  })

  it.skipIf(skip)('an address is blocked after its failed authentications, and only that address', async () => {
    const limiter = await make()
    expect((await limiter.authBlocked('10.0.0.1')).allowed).toBe(true)
    await limiter.recordAuthFailure('10.0.0.1')
    const once = await limiter.authBlocked('10.0.0.1')
    expect(once).toMatchObject({ allowed: true, limit: 2, remaining: 1 })
    await limiter.recordAuthFailure('10.0.0.1')
    const blocked = await limiter.authBlocked('10.0.0.1')
    expect(blocked.allowed).toBe(false)
    expect(blocked.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(blocked.retryAfterSeconds).toBeLessThanOrEqual(60)
    expect((await limiter.authBlocked('10.0.0.2')).allowed).toBe(true)
    await limiter.close()
  })
})

describe.skipIf(SKIP_REDIS)('RateLimiter in Redis: shared by instances', () => {
  it('two instances spend one bucket and count one set of failures', async () => {
    const prefix = `pair${Date.now()}:`
    const a = await connected(shared({ prefix }))
    const b = await connected(shared({ prefix }))
    expect((await a.takeForKey('k')).allowed).toBe(true)
    expect((await b.takeForKey('k')).allowed).toBe(true)
    expect((await a.takeForKey('k')).remaining).toBe(0)
    expect((await b.takeForKey('k')).allowed).toBe(false)
    await a.recordAuthFailure('10.1.1.1')
    await b.recordAuthFailure('10.1.1.1')
    expect((await a.authBlocked('10.1.1.1')).allowed).toBe(false)
    await Promise.all([a.close(), b.close()])
  })

  it('every key it writes expires, and none holds more than the key id or the address', async () => {
    const prefix = `ttl${Date.now()}:`
    const limiter = await connected(shared({ prefix }))
    await limiter.takeForKey('0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')
    await limiter.recordAuthFailure('10.2.2.2')
    const client = new Redis(redis!.url)
    const keys = (await client.keys(`${prefix}*`)).sort()
    expect(keys).toEqual([`${prefix}authfail:10.2.2.2`, `${prefix}key:0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b`])
    for (const key of keys) {
      const ttl = await client.pttl(key)
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(60_000)
    }
    client.disconnect()
    await limiter.close()
  })

  it('while Redis is down each instance decides alone at once, says so, and shares again when Redis is back', async () => {
    const registry = new Registry()
    const prefix = `outage${Date.now()}:`
    const a = await connected(shared({ registry, prefix }))
    const b = await connected(shared({ prefix }))
    expect((await a.takeForKey('k')).allowed).toBe(true)
    warnings.length = 0
    await redis!.stop()
    try {
      const started = performance.now()
      // the shared bucket is out of reach: the fallback (a fresh memory bucket of 3) decides
      const alone = [await a.takeForKey('k'), await a.takeForKey('k'), await a.takeForKey('k'), await a.takeForKey('k')]
      expect(alone.map((d) => d.allowed)).toEqual([true, true, true, false])
      expect(performance.now() - started).toBeLessThan(2000)
      expect((await a.authBlocked('10.3.3.3')).allowed).toBe(true)
      expect(warnings).toHaveLength(1) // once, not once per request
      expect(warnings[0]).toMatch(/per instance/)
      expect(await registry.getSingleMetricAsString('rate_limit_redis_fallbacks_total')).toMatch(/rate_limit_redis_fallbacks_total 5/)
    } finally {
      await redis!.start()
    }
    // reconnects on its own (back-off up to 2 s); a fresh server is empty: the shared bucket starts full again
    expect(await a.connected(10_000)).toBe(true)
    expect(await b.connected(10_000)).toBe(true)
    expect((await a.takeForKey('again')).remaining).toBe(2)
    expect((await b.takeForKey('again')).remaining).toBe(1)
    await Promise.all([a.close(), b.close()])
  })
})
