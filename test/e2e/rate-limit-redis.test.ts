/**
 * docs/api.md#limits across instances: with REDIS_URL, two instances of the service enforce ONE limit per API key and one
 * failed-authentication limit per address, whichever instance each request reaches; each keyed request costs one
 * Redis command; while Redis is away they keep serving with per-instance limits (the redis-server at
 * TEST_REDIS_URL, behind a TCP proxy to stage the outage).
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { redisBehindProxy, requireTestRedisUrl, SKIP_REDIS, testAddress } from '../helpers/redis.js'
import { closedPort, urlWithPort, type TcpProxy } from '../helpers/tcp-proxy.js'

describe.skipIf(SKIP_REDIS)('limits shared through Redis by two instances', () => {
  let proxy: TcpProxy
  let dir: string
  let a: TestApp
  let b: TestApp
  const logs: string[] = []
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk))
        done()
      },
    }),
  )
  const env = (): Record<string, string> => ({
    DATABASE_URL: `sqlite:${join(dir, 'shared.db')}`,
    REDIS_URL: proxy.url,
    RATE_LIMIT_RPS: '1',
    RATE_LIMIT_BURST: '4',
    AUTH_FAIL_LIMIT: '3',
  })

  beforeAll(async () => {
    proxy = await redisBehindProxy()
    dir = mkdtempSync(join(tmpdir(), 'limits-'))
    a = await buildTestApp(env(), { logger })
    b = await buildTestApp(env())
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await proxy?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  /** The invoice list on instance `t` as `who` (or with no key) from the address `ip`. */
  const list = (t: TestApp, who: { apiKey: string } | null, ip: string) =>
    (who === null ? api(t) : api(t).as(who)).listInvoices({}, { remoteAddress: ip })
  const badKey = { apiKey: 'mk_' + 'x'.repeat(43) }

  it('when one key sends its burst across both instances, then the next request on either is 429 with Retry-After and RateLimit headers', async () => {
    const ip = testAddress()
    const m = await shop()
    const answers = []
    for (const t of [a, b, a, b]) answers.push(await list(t, m, ip))
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['3', '2', '1', '0'])
    for (const t of [a, b]) {
      const refused = await list(t, m, ip)
      expectProblem(refused, 429, 'rate_limited')
      expect(refused.headers['retry-after']).toBe('1')
      expect(refused.headers['ratelimit-limit']).toBe('4')
      expect(refused.headers['ratelimit-remaining']).toBe('0')
      expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(0)
    }
  })

  it('when an address fails authentication on both instances, then both refuse it, whatever key it sends', async () => {
    const ip = testAddress()
    const m = await shop()
    expect((await list(a, badKey, ip)).status).toBe(401)
    expect((await list(b, badKey, ip)).status).toBe(401)
    expect((await list(a, null, ip)).status).toBe(401) // the third: `a` now knows the address is blocked
    for (const t of [a, b]) {
      const blocked = await list(t, m, ip)
      expectProblem(blocked, 429, 'rate_limited')
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
      expect(blocked.headers['ratelimit-limit']).toBe('3')
    }
    const third = await buildTestApp(env()) // has seen nothing of this address
    try {
      expect((await list(third, badKey, ip)).status).toBe(429)
    } finally {
      await third.close()
    }
    expect((await list(b, m, testAddress())).status).toBe(200) // other addresses are unaffected
  })

  it('when a keyed request is served or refused, then it costs one Redis command, whose keys hold no API key', async () => {
    const ip = testAddress()
    const m = await shop()
    const client = new Redis(requireTestRedisUrl())
    const monitor = await client.monitor()
    const commands: string[][] = []
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // the scripts' own commands come from "lua"; only what clients send is a round-trip
      if (source !== 'lua' && args.some((arg) => arg.includes(ip))) commands.push(args)
    })
    try {
      await list(a, m, testAddress()) // the scripts are cached on the server by now
      await new Promise((r) => setTimeout(r, 100))
      expect((await list(a, m, ip)).status).toBe(200)
      expect((await list(b, m, ip)).status).toBe(200)
      expect((await list(b, badKey, ip)).status).toBe(401)
      await new Promise((r) => setTimeout(r, 200))
      expect(commands.map((c) => c[0]?.toLowerCase())).toEqual(['evalsha', 'evalsha', 'evalsha'])
      const hash = createHash('sha256').update(m.apiKey).digest()
      for (const secret of [m.apiKey, hash.toString('hex'), hash.toString('base64'), hash.toString('base64url')]) {
        expect(JSON.stringify(commands)).not.toContain(secret)
      }
      expect(commands[0]).toContain(`invoice-service:ratelimit:key:${m.apiKeyId}`)
    } finally {
      monitor.disconnect()
      client.disconnect()
    }
  })

  it('when Redis goes away, then requests are still served with per-instance limits, logged once and counted; when it is back, limits are shared again', async () => {
    const ip = testAddress()
    const m = await shop()
    logs.length = 0
    await proxy.stop()
    try {
      // each instance now has a bucket of its own for this key: 4 requests each, the 5th refused
      for (const t of [a, b]) {
        const answers = []
        for (let i = 0; i < 5; i += 1) answers.push((await list(t, m, ip)).status)
        expect(answers).toEqual([200, 200, 200, 200, 429])
      }
      const warnings = logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40)
      expect(warnings.map((w) => w.msg)).toEqual([
        'Redis cannot answer: rate limits are enforced per instance until it is back',
      ])
      const metrics = await api(a).metrics()
      expect(metrics.text).toMatch(/^rate_limit_redis_fallbacks_total [1-9]/m)
      expectStatus(await api(a).readyz(), 200) // Redis is not a readiness condition
    } finally {
      await proxy.start()
    }
    for (const t of [a, b]) expect(await waitFor(() => sharedAgain(t))).toBe(true)
    expect(logs.some((l) => l.includes('Redis answers again'))).toBe(true)
    for (const line of logs) expect(line).not.toContain(m.apiKey)
  })

  it('when Redis is unreachable at the start, then the instance starts anyway and limits on its own', async () => {
    const m = await shop()
    const alone = await buildTestApp({
      ...env(),
      REDIS_URL: urlWithPort(proxy.url, await closedPort()),
      RATE_LIMIT_BURST: '2',
    })
    try {
      const answers = []
      for (let i = 0; i < 3; i += 1) answers.push((await list(alone, m, testAddress())).status)
      expect(answers).toEqual([200, 200, 429])
    } finally {
      await alone.close()
    }
  })

  /** A merchant with a key of its own, so that each test starts with a full bucket. */
  const shop = (): Promise<TestMerchant> => a.merchant(`Shop ${randomUUID()}`)

  /** Whether a new key's request on `t` is decided in Redis: its bucket is then visible there. */
  async function sharedAgain(t: TestApp): Promise<boolean> {
    const other = await shop()
    await list(t, other, testAddress())
    const client = new Redis(requireTestRedisUrl())
    try {
      return (await client.exists(`invoice-service:ratelimit:key:${other.apiKeyId}`)) === 1
    } finally {
      client.disconnect()
    }
  }
})

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}
