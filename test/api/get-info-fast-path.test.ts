/**
 * getInfo's fast path (docs/performance.md#getinfos-fast-path, src/http/get-info-fast-path.ts): over real sockets,
 * a plain getInfo is answered before the framework — and answered as the framework answers it — and every
 * request a step refuses is handed to the framework, which answers it as before.
 * Whether the framework handled a request: test/helpers/fast-path.ts.
 */
import { once } from 'node:events'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { setMerchantStatus } from '../../src/app/set-merchant-status.js'
import { api, expectStatus } from '../helpers/api.js'
import type { TestApp, TestMerchant } from '../helpers/build-test-app.js'
import {
  comparableProblem,
  frameworkHandlersDuring,
  header,
  listeningClosedAfterEach,
  overSocket,
  sameHeaders,
  type SocketAnswer,
} from '../helpers/fast-path.js'
import { requireTestRedisUrl, SKIP_REDIS } from '../helpers/redis.js'
import { until } from '../helpers/until.js'
import { sleep } from '../helpers/webhook-receiver.js'

const listening = listeningClosedAfterEach()

const getInfoPath = (query: string) => `/api/invoice/getInfo?${query}`

async function invoicesIn(app: TestApp, m: TestMerchant) {
  const shop = api(app).as(m)
  const pending = await shop.newInvoice({ order_id: 'F-1', amount: '250.75', currency: 'RUB', lifetime: 600 })
  const paid = await shop.newInvoice({ order_id: 'F-2', amount: '10.00', currency: 'RUB', comment: 'два "кофе"' })
  expectStatus(await api(app).simulate(paid, { outcome: 'paid' }), 200)
  const expired = await shop.newInvoice({ order_id: 'F/3 é', amount: '1', currency: 'USD', lifetime: 300 })
  return { pending, paid, expired }
}

describe("getInfo's fast path", () => {
  // the key looked up in the store on every request (a promise), and cached (an answer at once: the default)
  it.each([
    ['looked up', '0'],
    ['cached', '60'],
  ])(
    'when a plain getInfo arrives (its key %s), then the framework never sees it, and its answer, log line and metrics are those the framework gives the same request',
    async (_how, ttl) => {
      const { t, port, m, lines } = await listening({ KEY_CACHE_TTL: ttl })
      const ids = await invoicesIn(t, m)
      t.clock.advance(400) // the third reads as expired, the first is still pending
      for (const [name, id] of Object.entries(ids)) {
        const query = `merchant_id=${m.id}&invoice_id=${id}`
        const fast = await overSocket(port, getInfoPath(query), {
          'x-api-key': m.apiKey,
          'x-request-id': `fast-${name}`,
        })
        // the same request with an unknown parameter percent-encoded: the framework's (the fast path reads no `%`)
        const slow = await overSocket(port, getInfoPath(`${query}&unused=%41`), {
          'x-api-key': m.apiKey,
          'x-request-id': `framework-${name}`,
        })
        expect([fast.status, fast.framework, slow.status, slow.framework], name).toEqual([200, 0, 200, 1])
        expect(fast.body, name).toBe(slow.body)
        expect(sameHeaders(fast), name).toEqual(sameHeaders(slow))
        expect(header(fast, 'x-request-id')).toBe(`fast-${name}`)
        expect(Number(header(fast, 'ratelimit-remaining'))).toBe(Number(header(slow, 'ratelimit-remaining')) + 1)
      }
      expect(JSON.parse(await overSocketBody(port, m, ids.expired))).toMatchObject({ status: 'expired' })

      // the access log: the same line, but for the URL, the id and the time
      const completed = lines.filter((l) => l.msg === 'request completed')
      const byId = (id: string) => completed.find((l) => l.reqId === id) as Record<string, unknown>
      const fastLine = byId('fast-paid')
      const slowLine = byId('framework-paid')
      const comparable = ({ time: _t, ms: _ms, reqId: _r, url: _u, ...rest }: Record<string, unknown>) => rest
      expect(Object.keys(fastLine)).toEqual(Object.keys(slowLine))
      expect(comparable(fastLine)).toEqual(comparable(slowLine))
      expect(fastLine.url).toBe(getInfoPath(`merchant_id=${m.id}&invoice_id=${ids.paid}`))

      // the metrics: both paths count in the same series
      const metrics = await overSocket(port, '/metrics')
      const series = metrics.body
        .split('\n')
        .find((l) => l.startsWith('http_requests_total{method="GET",route="/api/invoice/getInfo",status_code="200"}'))
      expect(series?.split(' ')[1]).toBe('7')
    },
  )

  it('when GETINFO_FAST_PATH is false, then every getInfo goes through the framework, with the same answer', async () => {
    const { t, port, m } = await listening({ GETINFO_FAST_PATH: 'false' })
    const { paid } = await invoicesIn(t, m)
    const res = await overSocket(port, getInfoPath(`merchant_id=${m.id}&invoice_id=${paid}`), { 'x-api-key': m.apiKey })
    expect([res.status, res.framework]).toEqual([200, 1])
    expect(JSON.parse(res.body)).toMatchObject({ id: paid, status: 'paid' })
  })

  it('when a getInfo is by order_id, then the fast path answers it too', async () => {
    const { t, port, m } = await listening()
    await invoicesIn(t, m)
    // an unknown parameter is ignored (docs/api.md#getinfo), and with no X-Request-Id one is made
    const fast = await overSocket(port, getInfoPath(`order_id=F-1&merchant_id=${m.id}&lang=ru`), {
      'x-api-key': m.apiKey,
    })
    expect([fast.status, fast.framework]).toEqual([200, 0])
    expect(JSON.parse(fast.body)).toMatchObject({ order_id: 'F-1', status: 'pending' })
    expect(header(fast, 'x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
  })

  it('when a step refuses a getInfo, then the framework answers it, as it answers the same request with no fast path', async () => {
    const { t, port, m } = await listening()
    const { pending } = await invoicesIn(t, m)
    const other = await t.merchant('Other Shop')
    const key = { 'x-api-key': m.apiKey }
    const q = `merchant_id=${m.id}&invoice_id=${pending}`
    const wrongKey = { 'x-api-key': `mk_${'x'.repeat(43)}` }
    const cases: [string, string, Record<string, string>, number, string | null][] = [
      ['no key', q, {}, 401, 'missing_api_key'],
      ['a wrong key', q, wrongKey, 401, 'invalid_api_key'],
      ["another merchant's key", q, { 'x-api-key': other.apiKey }, 403, 'merchant_mismatch'],
      ['no such invoice', `merchant_id=${m.id}&invoice_id=${crypto.randomUUID()}`, key, 404, 'invoice_not_found'],
      ['a malformed id', `merchant_id=${m.id}&invoice_id=nope`, key, 400, 'validation_failed'],
      // docs/api.md#getinfo: the key is checked before the query
      ['a wrong key and a malformed id', `merchant_id=${m.id}&invoice_id=nope`, wrongKey, 401, 'invalid_api_key'],
      ['both ids', `${q}&order_id=F-1`, key, 400, 'ambiguous_identifier'],
      ['a parameter twice', `${q}&invoice_id=${pending}`, key, 400, 'validation_failed'],
      ['a parameter without a value', `${q}&order_id`, key, 400, 'ambiguous_identifier'],
      ['a bad percent-encoding', `${q}&order_id=%FF`, key, 400, 'validation_failed'],
      [
        'an encoded id',
        `merchant_id=${m.id}&invoice_id=${encodeURIComponent(pending).replace('-', '%2D')}`,
        key,
        200,
        null,
      ],
    ]
    const answeredAlike = async (
      name: string,
      query: string,
      headers: Record<string, string>,
      status: number,
      code: string | null,
    ) => {
      const res = await overSocket(port, getInfoPath(query), headers)
      // the fast path writes nothing but 200s: a refusal is the framework's, from its hooks or its handler
      expect(res.status, name).toBe(status)
      if (status === 200) expect(res.framework, name).toBe(1)
      // the same request through the framework alone (app.inject never meets the fast path)
      const injected = await t.app.inject({ method: 'GET', url: getInfoPath(query), headers })
      expect(injected.statusCode, name).toBe(status)
      if (code === null) return
      const problem = comparableProblem(res.body)
      expect(problem.code, name).toBe(code)
      expect(problem, name).toEqual(comparableProblem(injected.body))
    }
    for (const [name, query, headers, status, code] of cases) await answeredAlike(name, query, headers, status, code)
    const head = await overSocket(port, getInfoPath(q), key, 'HEAD')
    expect([head.status, head.framework]).toEqual([200, 1])
    // last: it refuses every later request of the merchant's key
    await setMerchantStatus(t.rt.deps, m.id, 'disabled')
    await answeredAlike('a disabled merchant', q, key, 403, 'merchant_disabled')
  })

  it('when a key spends its burst on fast answers, then each token is taken once and the next is refused 429', async () => {
    const { t, port, m } = await listening({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3' })
    const { pending } = await invoicesIn(t, m)
    t.clock.advance(10) // the creates took tokens of the key's bucket: full again
    const answers = await fourInARow(port, m, pending)
    expect(answers.map((a) => [a.status, a.framework])).toEqual([
      [200, 0],
      [200, 0],
      [200, 0],
      [429, 0], // refused by the framework's API key hook, before any handler
    ])
    expect(answers.map((a) => header(a, 'ratelimit-remaining'))).toEqual(['2', '1', '0', '0'])
    expect(header(answers[3] as SocketAnswer, 'retry-after')).toBe('1')
  })

  it.skipIf(SKIP_REDIS)(
    'when limits are shared through Redis, then each fast answer takes one token of the shared bucket',
    async () => {
      // RATE_LIMIT_RPS 1 on Redis's own clock: a token comes back only after a second between two requests
      const { t, port, m } = await listening({
        REDIS_URL: requireTestRedisUrl(),
        RATE_LIMIT_RPS: '1',
        RATE_LIMIT_BURST: '100',
      })
      const { pending } = await invoicesIn(t, m)
      const answers = await fourInARow(port, m, pending)
      expect(answers.map((a) => [a.status, a.framework])).toEqual([
        [200, 0],
        [200, 0],
        [200, 0],
        [200, 0],
      ])
      const remaining = answers.map((a) => Number(header(a, 'ratelimit-remaining')))
      expect(remaining.slice(1).map((r, i) => (remaining[i] as number) - r)).toEqual([1, 1, 1])
    },
  )

  it('when the app begins to close with a getInfo on its way, then the framework answers it, with Connection: close', async () => {
    const { t, port, m } = await listening()
    const { pending } = await invoicesIn(t, m)
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    let received = ''
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8')
    })
    const { framework } = await frameworkHandlersDuring(async () => {
      // the request's first bytes before the close (the connection is not idle), its end after it has begun
      socket.write(`GET ${getInfoPath(`merchant_id=${m.id}&invoice_id=${pending}`)} HTTP/1.1\r\nHost: x\r\n`)
      await sleep(50)
      const closed = t.app.close()
      socket.write(`X-Api-Key: ${m.apiKey}\r\n\r\n`)
      await closed
      await until('the answer', () => received.includes('"status":"pending"'), { ms: 5_000, everyMs: 10 })
    }).finally(() => socket.destroy())
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
    expect(received.toLowerCase()).toContain('\r\nconnection: close\r\n')
    expect(framework).toBe(1)
  })

  it('when the client address comes through a trusted proxy, then an address blocked for failed authentications is refused, another is answered', async () => {
    const { t, port, m } = await listening({ TRUST_PROXY: '1', AUTH_FAIL_LIMIT: '2' })
    const { pending } = await invoicesIn(t, m)
    const path = getInfoPath(`merchant_id=${m.id}&invoice_id=${pending}`)
    const from = (address: string, apiKey: string) =>
      overSocket(port, path, { 'x-api-key': apiKey, 'x-forwarded-for': address })
    for (let i = 0; i < 2; i += 1) expect((await from('203.0.113.9', `mk_${'y'.repeat(43)}`)).status).toBe(401)
    const blocked = await from('203.0.113.9', m.apiKey)
    expect([blocked.status, JSON.parse(blocked.body).code]).toEqual([429, 'rate_limited'])
    const answered = await from('203.0.113.10', m.apiKey)
    expect([answered.status, answered.framework]).toEqual([200, 0])
  })
})

/** Four getInfos of `id` with the merchant's key, one after the other. */
async function fourInARow(port: number, m: TestMerchant, id: string): Promise<SocketAnswer[]> {
  const answers = []
  const path = getInfoPath(`merchant_id=${m.id}&invoice_id=${id}`)
  for (let i = 0; i < 4; i += 1) answers.push(await overSocket(port, path, { 'x-api-key': m.apiKey }))
  return answers
}

async function overSocketBody(port: number, m: TestMerchant, id: string): Promise<string> {
  const res = await overSocket(port, getInfoPath(`merchant_id=${m.id}&invoice_id=${id}`), { 'x-api-key': m.apiKey })
  return res.body
}
