/**
 * API.md B8 across instances: with REDIS_URL, two instances of the service enforce ONE limit per API key and one
 * failed-authentication limit per address, whichever instance each request reaches (a real redis-server).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { SKIP_REDIS, startTestRedis, type TestRedis } from '../helpers/redis.js'

describe.skipIf(SKIP_REDIS)('limits shared through Redis by two instances', () => {
  let redis: TestRedis
  let dir: string
  let a: TestApp
  let b: TestApp
  let m: TestMerchant

  beforeAll(async () => {
    redis = await startTestRedis()
    dir = mkdtempSync(join(tmpdir(), 'limits-'))
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'shared.db')}`,
      REDIS_URL: redis.url,
      RATE_LIMIT_RPS: '1',
      RATE_LIMIT_BURST: '4',
      AUTH_FAIL_LIMIT: '3',
    }
    a = await buildTestApp(env)
    b = await buildTestApp(env)
    m = await a.merchant()
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await redis?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const list = (t: TestApp, key: string | null, ip: string) =>
    t.app.inject({ url: '/api/v1/invoices', remoteAddress: ip, headers: key === null ? {} : { 'x-api-key': key } })

  it('when one key sends its burst across both instances, then the next request on either is 429 with Retry-After', async () => {
    const answers = []
    for (const t of [a, b, a, b]) answers.push(await list(t, m.apiKey, '10.0.0.1'))
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200])
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['3', '2', '1', '0'])
    for (const t of [a, b]) {
      const refused = await list(t, m.apiKey, '10.0.0.1')
      expect(refused.statusCode).toBe(429)
      expect(refused.json().code).toBe('rate_limited')
      expect(refused.headers['retry-after']).toBe('1')
      expect(refused.headers['ratelimit-limit']).toBe('4')
    }
  })

  it('when an address fails authentication on both instances, then both block it', async () => {
    const bad = 'mk_' + 'x'.repeat(43)
    expect((await list(a, bad, '10.9.9.9')).statusCode).toBe(401)
    expect((await list(b, bad, '10.9.9.9')).statusCode).toBe(401)
    expect((await list(a, null, '10.9.9.9')).statusCode).toBe(401)
    for (const t of [a, b]) {
      const blocked = await list(t, m.apiKey, '10.9.9.9')
      expect(blocked.statusCode).toBe(429)
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
    }
  })

  it('when Redis is unreachable at the start, then the instance starts anyway and limits on its own', async () => {
    await redis.stop()
    try {
      const alone = await buildTestApp({ DATABASE_URL: `sqlite:${join(dir, 'shared.db')}`, REDIS_URL: redis.url, RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' })
      try {
        const answers = []
        for (let i = 0; i < 3; i += 1) answers.push((await list(alone, m.apiKey, '10.0.0.7')).statusCode)
        expect(answers).toEqual([200, 200, 429])
      } finally {
        await alone.close()
      }
    } finally {
      await redis.start()
    }
  })
})
