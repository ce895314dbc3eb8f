import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

describe('limits (API.md B8)', () => {
  let t: TestApp
  let m: TestMerchant
  beforeEach(async () => {
    t = await buildTestApp({ RATE_LIMIT_RPS: '2', RATE_LIMIT_BURST: '4', AUTH_FAIL_LIMIT: '3' })
    m = await t.merchant()
  })
  afterEach(async () => t.close())

  const list = (key: string | null, ip = '10.0.0.1') =>
    t.app.inject({ url: '/api/v1/invoices', remoteAddress: ip, headers: key === null ? {} : { 'x-api-key': key } })

  it('when a key exceeds its burst, then 429 rate_limited with Retry-After and RateLimit headers; tokens refill over time', async () => {
    const answers = []
    for (let i = 0; i < 5; i += 1) answers.push(await list(m.apiKey))
    expect(answers.slice(0, 4).map((r) => r.statusCode)).toEqual([200, 200, 200, 200])
    expect(answers[0]?.headers['ratelimit-limit']).toBe('4')
    expect(answers[0]?.headers['ratelimit-remaining']).toBe('3')
    expect(answers[3]?.headers['ratelimit-remaining']).toBe('0')
    const refused = answers[4]!
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['content-type']).toMatch(/problem\+json/)
    expect(refused.json().code).toBe('rate_limited')
    expect(refused.headers['retry-after']).toBe('1')
    expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(0)
    t.clock.advance(0.5) // 2 tokens a second: one more request
    expect((await list(m.apiKey)).statusCode).toBe(200)
    expect((await list(m.apiKey)).statusCode).toBe(429)
  })

  it("when one key is limited, then another merchant's key is not", async () => {
    const other = await t.merchant('Other')
    for (let i = 0; i < 5; i += 1) await list(m.apiKey)
    expect((await list(m.apiKey)).statusCode).toBe(429)
    expect((await list(other.apiKey)).statusCode).toBe(200)
  })

  it('when an address fails authentication too often, then its keyed requests get 429 without the key being evaluated, until the minute has passed', async () => {
    for (let i = 0; i < 3; i += 1) expect((await list('mk_' + 'x'.repeat(43), '10.9.9.9')).statusCode).toBe(401)
    const blocked = await list(m.apiKey, '10.9.9.9')
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().code).toBe('rate_limited')
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
    // missing keys count as failures too, and other addresses are unaffected
    expect((await list(m.apiKey, '10.0.0.2')).statusCode).toBe(200)
    t.clock.advance(60)
    expect((await list(m.apiKey, '10.9.9.9')).statusCode).toBe(200)
  })

  it('when the clock steps back while an address is blocked, then the block still ends a minute later, not a minute plus the step', async () => {
    for (let i = 0; i < 3; i += 1) expect((await list('mk_' + 'x'.repeat(43), '10.9.9.8')).statusCode).toBe(401)
    expect((await list(m.apiKey, '10.9.9.8')).statusCode).toBe(429)
    t.clock.advance(-3600) // NTP correcting a clock that ran an hour fast
    t.clock.advance(60)
    expect((await list(m.apiKey, '10.9.9.8')).statusCode).toBe(200)
  })

  it('when the key is missing, then the failure counts toward the address limit', async () => {
    for (let i = 0; i < 3; i += 1) expect((await list(null, '10.8.8.8')).statusCode).toBe(401)
    expect((await list(m.apiKey, '10.8.8.8')).statusCode).toBe(429)
  })
})

describe('limits per client address behind a reverse proxy (TRUST_PROXY)', () => {
  const PROXY = '10.0.0.5'
  let t: TestApp | undefined
  afterEach(async () => t?.close())

  /** A keyed request that reaches the service from the proxy, for the client `forwardedFor` (X-Forwarded-For). */
  const viaProxy = (app: TestApp, key: string | null, forwardedFor: string) =>
    app.app.inject({
      url: '/api/v1/invoices',
      remoteAddress: PROXY,
      headers: { 'x-forwarded-for': forwardedFor, ...(key === null ? {} : { 'x-api-key': key }) },
    })

  it('when the proxy is trusted, then one client failing to authenticate blocks that client only, not everyone behind the proxy', async () => {
    t = await buildTestApp({ AUTH_FAIL_LIMIT: '3', TRUST_PROXY: '10.0.0.0/8' })
    const m = await t.merchant()
    for (let i = 0; i < 3; i += 1) expect((await viaProxy(t, null, '203.0.113.7')).statusCode).toBe(401)
    expect((await viaProxy(t, m.apiKey, '203.0.113.7')).statusCode).toBe(429)
    expect((await viaProxy(t, m.apiKey, '198.51.100.20')).statusCode).toBe(200)
  })

  it('when no proxy is trusted (the default), then X-Forwarded-For is ignored: a client cannot pick the address it is counted as', async () => {
    t = await buildTestApp({ AUTH_FAIL_LIMIT: '3' })
    const m = await t.merchant()
    for (let i = 0; i < 3; i += 1) expect((await viaProxy(t, null, `203.0.113.${i}`)).statusCode).toBe(401)
    // all three failures counted against the peer, whatever each request claimed
    expect((await viaProxy(t, m.apiKey, '198.51.100.20')).statusCode).toBe(429)
  })

  it('when TRUST_PROXY is a hop count, then that many nearest hops are trusted', async () => {
    t = await buildTestApp({ AUTH_FAIL_LIMIT: '3', TRUST_PROXY: '1' })
    const m = await t.merchant()
    // the client put a fake address first; the proxy appended the one it saw
    for (let i = 0; i < 3; i += 1) expect((await viaProxy(t, null, `1.2.3.${i}, 203.0.113.9`)).statusCode).toBe(401)
    expect((await viaProxy(t, m.apiKey, '203.0.113.9')).statusCode).toBe(429)
    expect((await viaProxy(t, m.apiKey, '198.51.100.20')).statusCode).toBe(200)
  })
})
