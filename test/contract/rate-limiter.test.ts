/**
 * The RateLimiter port's contract, held by both adapters: in memory (one instance) and in Redis (shared), the
 * latter against the real redis-server at TEST_REDIS_URL. Then what only the shared one does: one bucket across
 * instances, keys that expire, and failing open to memory while Redis is away or silent.
 */
import { Redis } from 'ioredis'
import { Registry } from 'prom-client'
import { afterAll, describe, expect, it } from 'vitest'
import { createMemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js'
import { createRedisRateLimiter, type RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.js'
import type { Admission, RateLimiter } from '../../src/ports/rate-limiter.js'
import { redisBehindProxy, requireTestRedisUrl, SKIP_REDIS, testAddress, testKeyPrefix } from '../helpers/redis.js'

// A token a second: the takes of one test, milliseconds apart, see no refill even on a loaded machine (at 50 a
// second a 20 ms stall between two takes gave one back, and a refusal the test expected was an admission). The
// test of the refill itself asks for a faster rate.
const LIMITS = { rps: 1, burst: 3, authFailLimit: 2 }
const memory = (rps = LIMITS.rps): RateLimiter => createMemoryRateLimiter({ ...LIMITS, rps, now: Date.now })

interface Log {
  readonly warnings: string[]
  readonly infos: string[]
}
const newLog = (): Log => ({ warnings: [], infos: [] })
const shared = (
  opts: { url?: string; registry?: Registry; prefix?: string; log?: Log; commandTimeoutMs?: number; rps?: number } = {},
): RedisRateLimiter => {
  const log = opts.log ?? newLog()
  const rps = opts.rps ?? LIMITS.rps
  return createRedisRateLimiter({
    url: opts.url ?? requireTestRedisUrl(),
    ...LIMITS,
    rps,
    fallback: memory(rps),
    log: { warn: (message) => log.warnings.push(message), info: (message) => log.infos.push(message) },
    keyPrefix: opts.prefix ?? testKeyPrefix(),
    ...(opts.registry !== undefined && { registry: opts.registry }),
    ...(opts.commandTimeoutMs !== undefined && { commandTimeoutMs: opts.commandTimeoutMs }),
  })
}
const connected = async (limiter: RedisRateLimiter): Promise<RedisRateLimiter> => {
  expect(await limiter.connected(5000)).toBe(true)
  return limiter
}
const bucket = (a: Admission) => {
  expect(a.by).toBe('key')
  return a.decision
}

const adapters: Array<[string, (rps?: number) => RateLimiter | Promise<RateLimiter>, boolean]> = [
  ['memory', (rps) => memory(rps), false],
  ['redis', (rps) => connected(shared(rps === undefined ? {} : { rps })), SKIP_REDIS],
]

describe.each(adapters)('RateLimiter contract: %s', (_name, make, skip) => {
  const ip = '10.0.0.1'

  it.skipIf(skip)('a key gets its burst, then refusals that say when to retry; other keys are apart', async () => {
    const limiter = await make()
    const decisions = [
      bucket(await limiter.takeForKey('k1', ip)),
      bucket(await limiter.takeForKey('k1', ip)),
      bucket(await limiter.takeForKey('k1', ip)),
    ]
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true])
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0])
    expect(decisions.every((d) => d.limit === 3 && d.resetSeconds >= 1)).toBe(true)
    const refused = bucket(await limiter.takeForKey('k1', ip))
    expect(refused.allowed).toBe(false)
    expect(refused.retryAfterSeconds).toBe(1)
    expect(refused.remaining).toBe(0)
    expect(bucket(await limiter.takeForKey('k2', ip)).allowed).toBe(true)
    await limiter.close()
  })

  it.skipIf(skip)('tokens come back at the configured rate', async () => {
    const limiter = await make(10)
    for (let i = 0; i < 3; i += 1) await limiter.takeForKey('refill', ip)
    expect(bucket(await limiter.takeForKey('refill', ip)).allowed).toBe(false)
    await new Promise((r) => setTimeout(r, 150)) // 10 a second: one and a half tokens
    expect(bucket(await limiter.takeForKey('refill', ip)).allowed).toBe(true)
    await limiter.close()
  })

  it.skipIf(skip)('an address is blocked after its failed authentications, and only that address', async () => {
    const limiter = await make()
    expect((await limiter.authBlocked('10.0.0.1')).allowed).toBe(true)
    expect((await limiter.recordAuthFailure('10.0.0.1')).allowed).toBe(true)
    const once = await limiter.authBlocked('10.0.0.1')
    expect(once).toMatchObject({ allowed: true, limit: 2, remaining: 1 })
    expect((await limiter.recordAuthFailure('10.0.0.1')).allowed).toBe(true) // the second may still be tried
    const blocked = await limiter.authBlocked('10.0.0.1')
    expect(blocked).toMatchObject({ allowed: false, limit: 2, remaining: 0 })
    expect(blocked.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(blocked.retryAfterSeconds).toBeLessThanOrEqual(60)
    expect((await limiter.authBlocked('10.0.0.2')).allowed).toBe(true)
    await limiter.close()
  })

  it.skipIf(skip)(
    'a blocked address is refused by takeForKey without a token being taken, and a failure past the limit is refused',
    async () => {
      const limiter = await make()
      await limiter.recordAuthFailure('10.0.0.3')
      await limiter.recordAuthFailure('10.0.0.3')
      const refused = await limiter.takeForKey('k3', '10.0.0.3')
      expect(refused.by).toBe('address')
      expect(refused.decision).toMatchObject({ allowed: false, limit: 2, remaining: 0 })
      expect(refused.decision.retryAfterSeconds).toBeGreaterThanOrEqual(1)
      expect(bucket(await limiter.takeForKey('k3', '10.0.0.4')).remaining).toBe(2) // the bucket was still full
      const past = await limiter.recordAuthFailure('10.0.0.3')
      expect(past).toMatchObject({ allowed: false, limit: 2, remaining: 0 })
      await limiter.close()
    },
  )
})

// The in-memory limiter keeps at most `maxEntries` keys and drops the one used longest ago. "Used" is refreshed
// at most once a second per key (memory-rate-limiter.ts: moving a key on every request made V8 rebuild the map's
// table in the old generation each time, and full garbage collections ran every ~2 s under load).
describe('RateLimiter in memory: decisions made at once', () => {
  // ports/rate-limiter.ts: a limiter without I/O returns its decisions, not promises of them, so that a merchant
  // request's authentication takes no turn of the microtask queue (http/plugins/auth.ts, docs/performance.md)
  it('when any decision is asked of it, then the answer is the decision itself, not a promise', () => {
    const limiter = memory()
    const answers = [
      limiter.authBlocked('10.9.0.1'),
      limiter.takeForKey('k-now', '10.9.0.1'),
      limiter.recordAuthFailure('10.9.0.2'),
    ]
    for (const answer of answers) expect(answer).not.toBeInstanceOf(Promise)
    expect((answers[1] as Admission).decision.remaining).toBe(LIMITS.burst - 1)
  })
})

describe('RateLimiter in memory: which key goes first when the map is full', () => {
  const ip = '10.0.0.9'
  // no refill worth counting: a bucket's `remaining` shows whether it was kept (spent) or dropped (full again)
  const limiter = (clock: { t: number }): RateLimiter =>
    createMemoryRateLimiter({ rps: 0.001, burst: 3, authFailLimit: 100, maxEntries: 2, now: () => clock.t })
  const remaining = async (l: RateLimiter, key: string): Promise<number> =>
    bucket(await l.takeForKey(key, ip)).remaining

  it('when a key was used again a second or more after its last move, then it counts as recent and another key goes first', async () => {
    const clock = { t: 0 }
    const l = limiter(clock)
    expect(await remaining(l, 'a')).toBe(2)
    clock.t = 10
    expect(await remaining(l, 'b')).toBe(2)
    clock.t = 1500
    expect(await remaining(l, 'a')).toBe(1) // moved: now the most recent
    clock.t = 1600
    expect(await remaining(l, 'c')).toBe(2) // the map is full: 'b' goes
    expect(await remaining(l, 'a')).toBe(0) // kept, still spending its bucket
    expect(await remaining(l, 'b')).toBe(2) // dropped: a fresh bucket
  })

  it('when a key is used again within a second of its last move, then its bucket is updated in place and it keeps its place', async () => {
    const clock = { t: 0 }
    const l = limiter(clock)
    expect(await remaining(l, 'a')).toBe(2)
    clock.t = 10
    expect(await remaining(l, 'b')).toBe(2)
    clock.t = 500
    expect(await remaining(l, 'a')).toBe(1) // updated in place: still the oldest move
    clock.t = 600
    expect(await remaining(l, 'c')).toBe(2) // the map is full: 'a' goes
    expect(await remaining(l, 'b')).toBe(1) // kept
  })

  it('when the clock steps back, then a used key moves rather than trusting an old order', async () => {
    const clock = { t: 5000 }
    const l = limiter(clock)
    expect(await remaining(l, 'a')).toBe(2)
    clock.t = 5010
    expect(await remaining(l, 'b')).toBe(2)
    clock.t = 100 // the wall clock was set back
    expect(await remaining(l, 'a')).toBe(1) // moved
    expect(await remaining(l, 'c')).toBe(2) // 'b' goes
    expect(await remaining(l, 'a')).toBe(0)
  })
})

describe.skipIf(SKIP_REDIS)('RateLimiter in Redis: shared by instances', () => {
  const open: RateLimiter[] = []
  afterAll(async () => {
    await Promise.all(open.map((l) => l.close()))
  })
  const instance = async (opts: Parameters<typeof shared>[0]): Promise<RedisRateLimiter> => {
    const limiter = shared(opts)
    open.push(limiter)
    return connected(limiter)
  }

  it('two instances spend one bucket and count one set of failures', async () => {
    const prefix = testKeyPrefix()
    const [a, b] = [await instance({ prefix }), await instance({ prefix })]
    const ip = testAddress()
    expect(bucket(await a.takeForKey('k', ip)).remaining).toBe(2)
    expect(bucket(await b.takeForKey('k', ip)).remaining).toBe(1)
    expect(bucket(await a.takeForKey('k', ip)).remaining).toBe(0)
    expect(bucket(await b.takeForKey('k', ip)).allowed).toBe(false)

    const attacker = testAddress()
    expect((await a.recordAuthFailure(attacker)).allowed).toBe(true)
    expect((await b.recordAuthFailure(attacker)).allowed).toBe(true)
    expect((await b.authBlocked(attacker)).allowed).toBe(false)
    // `a` counted one failure itself; the next decision it asks Redis for tells it the rest
    expect((await a.takeForKey('k2', attacker)).by).toBe('address')
    expect((await a.authBlocked(attacker)).allowed).toBe(false)
    const c = await instance({ prefix })
    expect((await c.recordAuthFailure(attacker)).allowed).toBe(false)
  })

  it('every key it writes expires, and none holds more than the key id or the address', async () => {
    const prefix = testKeyPrefix()
    const limiter = await instance({ prefix })
    await limiter.takeForKey('0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '10.2.2.2')
    await limiter.recordAuthFailure('10.2.2.2')
    const client = new Redis(requireTestRedisUrl())
    try {
      const keys = (await client.keys(`${prefix}*`)).sort()
      expect(keys).toEqual([`${prefix}authfail:10.2.2.2`, `${prefix}key:0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b`])
      for (const key of keys) {
        const ttl = await client.pttl(key)
        expect(ttl).toBeGreaterThan(0)
        expect(ttl).toBeLessThanOrEqual(60_000)
      }
    } finally {
      client.disconnect()
    }
  })

  it('while Redis is away each instance decides alone at once, says so once, and shares again when Redis is back', async () => {
    const proxy = await redisBehindProxy()
    try {
      const registry = new Registry()
      const log = newLog()
      const prefix = testKeyPrefix()
      const a = await instance({ url: proxy.url, registry, prefix, log })
      const b = await instance({ url: proxy.url, prefix })
      const ip = testAddress()
      expect(bucket(await a.takeForKey('k', ip)).remaining).toBe(2)

      await proxy.stop()
      const started = performance.now()
      // the shared bucket is out of reach: the fallback (a fresh memory bucket of 3) decides
      const alone = [
        await a.takeForKey('k', ip),
        await a.takeForKey('k', ip),
        await a.takeForKey('k', ip),
        await a.takeForKey('k', ip),
      ]
      expect(alone.map((d) => bucket(d).allowed)).toEqual([true, true, true, false])
      expect((await a.recordAuthFailure(ip)).allowed).toBe(true)
      expect((await a.authBlocked(ip)).remaining).toBe(1) // counted alone meanwhile
      expect(performance.now() - started).toBeLessThan(1000)
      expect(log.warnings).toEqual(['Redis cannot answer: rate limits are enforced per instance until it is back']) // once
      expect(await registry.getSingleMetricAsString('rate_limit_redis_fallbacks_total')).toMatch(
        /rate_limit_redis_fallbacks_total 5$/m,
      )

      await proxy.start()
      // reconnects on its own (back-off up to 2 s); the bucket Redis kept is shared again
      expect(await a.connected(10_000)).toBe(true)
      expect(await b.connected(10_000)).toBe(true)
      expect(bucket(await a.takeForKey('k', ip)).remaining).toBeLessThanOrEqual(2)
      expect(bucket(await a.takeForKey('again', ip)).remaining).toBe(2)
      expect(bucket(await b.takeForKey('again', ip)).remaining).toBe(1)
      expect(log.infos).toEqual(['Redis answers again: rate limits are shared by every instance again'])
    } finally {
      await proxy.stop()
    }
  })

  it('when Redis stops answering on an open link, one decision waits for the timeout, the next ones do not, and it recovers', async () => {
    const proxy = await redisBehindProxy()
    try {
      const log = newLog()
      const prefix = testKeyPrefix()
      const a = await instance({ url: proxy.url, prefix, log, commandTimeoutMs: 200 })
      const ip = testAddress()
      expect(bucket(await a.takeForKey('k', ip)).remaining).toBe(2)

      proxy.freeze()
      let started = performance.now()
      expect(bucket(await a.takeForKey('k', ip)).allowed).toBe(true) // the fallback, after the timeout
      const first = performance.now() - started
      expect(first).toBeGreaterThanOrEqual(150)
      expect(first).toBeLessThan(1000)
      const waits = []
      for (let i = 0; i < 20; i += 1) {
        started = performance.now()
        await a.takeForKey('other', ip)
        waits.push(performance.now() - started)
      }
      expect(Math.max(...waits)).toBeLessThan(150) // none waits for the silent link
      expect(log.warnings).toHaveLength(1)

      proxy.thaw()
      const deadline = Date.now() + 10_000
      while (log.infos.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
        await a.takeForKey('probe', ip)
      }
      expect(log.infos).toEqual(['Redis answers again: rate limits are shared by every instance again'])
      const client = new Redis(requireTestRedisUrl())
      try {
        expect(await client.exists(`${prefix}key:probe`)).toBe(1) // decided in Redis again
      } finally {
        client.disconnect()
      }
    } finally {
      await proxy.stop()
    }
  })
})
