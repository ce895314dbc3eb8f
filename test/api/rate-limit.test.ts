import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

/** A key nobody holds: an authentication failure. */
const BAD_KEY = { apiKey: 'mk_' + 'x'.repeat(43) }

describe('limits (docs/api.md#limits)', () => {
  let t: TestApp
  let m: TestMerchant
  beforeEach(async () => {
    t = await buildTestApp({ RATE_LIMIT_RPS: '2', RATE_LIMIT_BURST: '4', AUTH_FAIL_LIMIT: '3' })
    m = await t.merchant()
  })
  afterEach(async () => t.close())

  /** The invoice list as `who` (or with no key) from the address `ip`. */
  const list = (who: { apiKey: string } | null, ip = '10.0.0.1') =>
    (who === null ? api(t) : api(t).as(who)).listInvoices({}, { remoteAddress: ip })
  /** Fails authentication from `ip` as often as AUTH_FAIL_LIMIT allows. */
  const failAuthentication = async (ip: string) => {
    for (let i = 0; i < 3; i += 1) expectProblem(await list(BAD_KEY, ip), 401, 'invalid_api_key')
  }

  it('when a key sends its burst, then each answer carries the RateLimit headers counting down', async () => {
    const answers = []
    for (let i = 0; i < 4; i += 1) answers.push(await list(m))
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(answers[0]?.headers['ratelimit-limit']).toBe('4')
    expect(answers[0]?.headers['ratelimit-remaining']).toBe('3')
    expect(answers[3]?.headers['ratelimit-remaining']).toBe('0')
  })

  it('when a key exceeds its burst, then 429 rate_limited with Retry-After and RateLimit headers', async () => {
    for (let i = 0; i < 4; i += 1) expectStatus(await list(m), 200)
    const refused = await list(m)
    expectProblem(refused, 429, 'rate_limited')
    expect(refused.headers['retry-after']).toBe('1')
    expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(0)
  })

  it('when a key has exceeded its burst, then tokens refill over time', async () => {
    for (let i = 0; i < 5; i += 1) await list(m)
    t.clock.advance(0.5) // 2 tokens a second: one more request
    expectStatus(await list(m), 200)
    expectProblem(await list(m), 429, 'rate_limited')
  })

  it("when one key is limited, then another merchant's key is not", async () => {
    const other = await t.merchant('Other')
    for (let i = 0; i < 5; i += 1) await list(m)
    expectProblem(await list(m), 429, 'rate_limited')
    expectStatus(await list(other), 200)
  })

  it('when an address fails authentication too often, then its keyed requests get 429 without the key being evaluated', async () => {
    await failAuthentication('10.9.9.9')
    const blocked = await list(m, '10.9.9.9')
    expectProblem(blocked, 429, 'rate_limited')
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('when an address fails authentication too often, then other addresses are unaffected', async () => {
    await failAuthentication('10.9.9.9')
    expectStatus(await list(m, '10.0.0.2'), 200)
  })

  it('when an address was blocked for failing authentication, then it is let in again once the minute has passed', async () => {
    await failAuthentication('10.9.9.9')
    expectProblem(await list(m, '10.9.9.9'), 429, 'rate_limited')
    t.clock.advance(60)
    expectStatus(await list(m, '10.9.9.9'), 200)
  })

  it('when the clock steps back while an address is blocked, then the block still ends a minute later, not a minute plus the step', async () => {
    await failAuthentication('10.9.9.8')
    expectProblem(await list(m, '10.9.9.8'), 429, 'rate_limited')
    t.clock.advance(-3600) // NTP correcting a clock that ran an hour fast
    t.clock.advance(60)
    expectStatus(await list(m, '10.9.9.8'), 200)
  })

  it('when the key is missing, then the failure counts toward the address limit', async () => {
    for (let i = 0; i < 3; i += 1) expectProblem(await list(null, '10.8.8.8'), 401, 'missing_api_key')
    expectProblem(await list(m, '10.8.8.8'), 429, 'rate_limited')
  })
})

describe('limits per client address behind a reverse proxy (TRUST_PROXY)', () => {
  const PROXY = '10.0.0.5'
  let t: TestApp | undefined
  afterEach(async () => t?.close())

  /** A keyed request that reaches the service from the proxy, for the client `forwardedFor` (X-Forwarded-For). */
  const viaProxy = (app: TestApp, who: TestMerchant | null, forwardedFor: string) =>
    (who === null ? api(app) : api(app).as(who)).listInvoices(
      {},
      { remoteAddress: PROXY, headers: { 'x-forwarded-for': forwardedFor } },
    )

  it('when the proxy is trusted, then one client failing to authenticate blocks that client only, not everyone behind the proxy', async () => {
    t = await buildTestApp({ AUTH_FAIL_LIMIT: '3', TRUST_PROXY: '10.0.0.0/8' })
    const m = await t.merchant()
    for (let i = 0; i < 3; i += 1) expect((await viaProxy(t, null, '203.0.113.7')).status).toBe(401)
    expect((await viaProxy(t, m, '203.0.113.7')).status).toBe(429)
    expect((await viaProxy(t, m, '198.51.100.20')).status).toBe(200)
  })

  it('when no proxy is trusted (the default), then X-Forwarded-For is ignored: a client cannot pick the address it is counted as', async () => {
    t = await buildTestApp({ AUTH_FAIL_LIMIT: '3' })
    const m = await t.merchant()
    for (let i = 0; i < 3; i += 1) expect((await viaProxy(t, null, `203.0.113.${i}`)).status).toBe(401)
    // all three failures counted against the peer, whatever each request claimed
    expect((await viaProxy(t, m, '198.51.100.20')).status).toBe(429)
  })

  it('when TRUST_PROXY is a hop count, then that many nearest hops are trusted', async () => {
    t = await buildTestApp({ AUTH_FAIL_LIMIT: '3', TRUST_PROXY: '1' })
    const m = await t.merchant()
    // the client put a fake address first; the proxy appended the one it saw
    for (let i = 0; i < 3; i += 1) expect((await viaProxy(t, null, `1.2.3.${i}, 203.0.113.9`)).status).toBe(401)
    expect((await viaProxy(t, m, '203.0.113.9')).status).toBe(429)
    expect((await viaProxy(t, m, '198.51.100.20')).status).toBe(200)
  })
})
