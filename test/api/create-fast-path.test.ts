/**
 * create's fast path (docs/performance.md#the-fast-paths, src/http/create-fast-path.ts): over real sockets, a plain
 * create is answered before the framework — and answered as the framework answers it — and every request a step
 * refuses is handed to the framework, before its body is read or replayed after, and answered as the framework
 * alone answers it; what the fast path did (a token, the create) is not done twice.
 */
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createInvoiceClient } from '@invoice-service/client'
import { setMerchantStatus } from '../../src/app/set-merchant-status.js'
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

const PATH = '/api/v1/invoices'
const JSON_TYPE = { 'content-type': 'application/json' }

const listening = listeningClosedAfterEach()

/** A create over its own connection with the merchant's key (or the given headers in its place). */
const post = (port: number, m: TestMerchant | null, body: string | Buffer, headers: Record<string, string> = {}) =>
  overSocket(port, PATH, { ...JSON_TYPE, ...(m === null ? {} : { 'x-api-key': m.apiKey }), ...headers }, 'POST', body)

const order = (orderId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ order_id: orderId, amount: '10.00', currency: 'RUB', ...extra })

const remaining = (a: SocketAnswer) => Number(header(a, 'ratelimit-remaining'))

async function invoicesOf(app: TestApp, m: TestMerchant, orderId: string) {
  const all = await app.rt.store.invoices.list({ merchantId: m.id as never, limit: 100, now: app.clock.now() })
  return all.filter((i) => i.orderId === orderId)
}

describe("create's fast path", () => {
  it('when a plain create arrives, then the framework never sees it, and its answer, log line and metrics are those the framework gives', async () => {
    const { t, port, m, lines } = await listening()
    // a JSON number: its text is kept by the same parser (the amount is read as 100.50, not as a double)
    const body = JSON.stringify({ order_id: 'C-1', amount: 100.5, currency: 'RUB', comment: 'два "кофе"\n' })
    const created = await post(port, m, body, { 'x-request-id': 'fast-new' })
    const again = await post(port, m, body, { 'x-request-id': 'fast-again' })
    // a content type the fast path does not take (it reads only the two a client library sends): the framework's
    const slow = await post(port, m, body, {
      'x-request-id': 'framework-again',
      'content-type': 'application/json; charset=UTF-8',
    })
    expect([created.status, created.framework, again.status, again.framework]).toEqual([201, 0, 200, 0])
    expect([slow.status, slow.framework]).toEqual([200, 1])
    expect(again.body).toBe(slow.body)
    expect(sameHeaders(again)).toEqual(sameHeaders(slow))
    expect(JSON.parse(created.body)).toEqual({ ...JSON.parse(slow.body), is_new: true })
    expect(JSON.parse(created.body)).toMatchObject({ amount: '100.50', is_new: true })
    expect(created.headers.map(([name]) => name)).toEqual(slow.headers.map(([name]) => name))
    expect(header(created, 'x-request-id')).toBe('fast-new')
    // one token each, the fast path's as the framework's
    expect([remaining(created) - remaining(again), remaining(again) - remaining(slow)]).toEqual([1, 1])
    expect(await invoicesOf(t, m, 'C-1')).toHaveLength(1)

    // the access log: the same line, but for the id and the time
    const completed = lines.filter((l) => l.msg === 'request completed')
    const byId = (id: string) => completed.find((l) => l.reqId === id) as Record<string, unknown>
    const comparable = ({ time: _t, ms: _ms, reqId: _r, ...rest }: Record<string, unknown>) => rest
    expect(Object.keys(byId('fast-again'))).toEqual(Object.keys(byId('framework-again')))
    expect(comparable(byId('fast-again'))).toEqual(comparable(byId('framework-again')))
    expect(byId('fast-new')).toMatchObject({ method: 'POST', url: PATH, statusCode: 201 })

    // the metrics: both paths count in the same series, and the new invoice once
    const metrics = (await overSocket(port, '/metrics')).body.split('\n')
    const value = (prefix: string) => metrics.find((l) => l.startsWith(prefix))?.split(' ')[1]
    const series = `http_requests_total{method="POST",route="${PATH}",status_code=`
    expect([value(`${series}"201"}`), value(`${series}"200"}`)]).toEqual(['1', '2'])
    expect(value('invoices_created_total{currency="RUB"')).toBe('1')
  })

  it('when the typed client creates an invoice, then the fast path answers it (the request a shop module sends)', async () => {
    const { port, m } = await listening()
    const client = createInvoiceClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: m.apiKey })
    const created = await frameworkHandlersDuring(() =>
      client.createInvoice({ order_id: 'K-1', amount: '12.50', currency: 'RUB' }),
    )
    expect(created.value).toMatchObject({ amount: '12.50', is_new: true })
    expect(created.framework).toBe(0)
  })

  it('when CREATE_FAST_PATH is false, then every create goes through the framework, with the same answer', async () => {
    const { port, m } = await listening({ CREATE_FAST_PATH: 'false' })
    const res = await post(port, m, order('C-off'))
    expect([res.status, res.framework]).toEqual([201, 1])
    expect(JSON.parse(res.body)).toMatchObject({ amount: '10.00', is_new: true })
  })

  it('when a step refuses a create, then the framework answers it, as it answers the same request with no fast path', async () => {
    const { t, port, m } = await listening()
    const other = await t.merchant('Other Shop')
    expect((await post(port, m, order('C-live'))).status).toBe(201)
    const cases: [string, Record<string, string>, string | Buffer, number, string][] = [
      ['no key', { 'x-api-key': '' }, order('C-2'), 401, 'missing_api_key'],
      ['a wrong key', { 'x-api-key': `mk_${'x'.repeat(43)}` }, order('C-2'), 401, 'invalid_api_key'],
      ['not JSON', {}, '{"order_id":', 400, 'invalid_json'],
      ['not UTF-8', {}, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 400, 'invalid_json'],
      ['a key twice', {}, '{"order_id":"a","order_id":"b","amount":"1","currency":"RUB"}', 400, 'invalid_json'],
      ['__proto__', {}, '{"order_id":"a","amount":"1","currency":"RUB","__proto__":{"x":1}}', 400, 'validation_failed'],
      ['an unknown field', {}, order('C-2', { colour: 'red' }), 400, 'validation_failed'],
      ['no currency', {}, JSON.stringify({ order_id: 'C-2', amount: '1' }), 400, 'validation_failed'],
      ['an amount too precise', {}, order('C-2', { amount: '1.001' }), 400, 'validation_failed'],
      ['an unknown currency', {}, order('C-2', { currency: 'XXX' }), 400, 'validation_failed'],
      ['another amount for a live order', {}, order('C-live', { amount: '11.00' }), 409, 'order_id_conflict'],
      ['a body over the limit', {}, order('C-2', { comment: 'x'.repeat(70_000) }), 413, 'payload_too_large'],
      ['a text body', { 'content-type': 'text/plain' }, order('C-2'), 415, 'unsupported_media_type'],
      ["another merchant's order", { 'x-api-key': other.apiKey }, order('C-live', { amount: '12.00' }), 201, ''],
    ]
    for (const [name, headers, body, status, code] of cases) {
      const res = await post(port, m, body, headers)
      expect(res.status, name).toBe(status)
      if (code === '') continue
      // the same request through the framework alone (app.inject never meets the fast path)
      const injected = await t.app.inject({
        method: 'POST',
        url: PATH,
        headers: { ...JSON_TYPE, 'x-api-key': m.apiKey, ...headers },
        payload: body,
      })
      expect(injected.statusCode, name).toBe(status)
      const problem = comparableProblem(res.body)
      expect(problem.code, name).toBe(code)
      expect(problem, name).toEqual(comparableProblem(injected.body))
    }
    expect(await invoicesOf(t, m, 'C-2')).toHaveLength(0)
    // last: it refuses every later request of the merchant's key
    await setMerchantStatus(t.rt.deps, m.id, 'disabled')
    const disabled = await post(port, m, order('C-3'))
    expect([disabled.status, comparableProblem(disabled.body).code]).toEqual([403, 'merchant_disabled'])
  })

  it('when creates are refused before and after their token, then each request takes one token, never two', async () => {
    const { t, port, m } = await listening({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '10' })
    const answers = [
      await post(port, m, order('T-1')), // the fast path's
      await post(port, m, order('T-1', { amount: '11.00' })), // replayed after the token and the create
      await post(port, m, order('T-2', { amount: '1.001' })), // replayed after the token and the create
      await post(port, m, '{"order_id":'), // replayed before the token
      await post(port, m, order('T-1')), // the fast path's
    ]
    expect(answers.map((a) => [a.status, a.framework])).toEqual([
      [201, 0],
      [409, 1],
      [400, 1],
      [400, 0], // refused by the framework's body parser, before any handler
      [200, 0],
    ])
    expect(answers.map(remaining)).toEqual([9, 8, 7, 6, 5])
    expect(await invoicesOf(t, m, 'T-1')).toHaveLength(1)
  })

  it('when a key has spent its burst, then the next create is refused 429 and creates nothing', async () => {
    const { t, port, m } = await listening({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' })
    const answers = [
      await post(port, m, order('B-1')),
      await post(port, m, order('B-2')),
      await post(port, m, order('B-3')),
    ]
    expect(answers.map((a) => [a.status, a.framework, remaining(a)])).toEqual([
      [201, 0, 1],
      [201, 0, 0],
      [429, 0, 0], // refused by the framework's API key hook, before any handler
    ])
    expect(header(answers[2] as SocketAnswer, 'retry-after')).toBe('1')
    expect(await invoicesOf(t, m, 'B-3')).toHaveLength(0)
  })

  it('when an address has failed authentication too often, then its creates are refused 429 even with a good key, and another address is answered', async () => {
    // docs/api.md#limits: past AUTH_FAIL_LIMIT every keyed request from the address gets 429, its key not evaluated
    const { t, port, m } = await listening({ TRUST_PROXY: '1', AUTH_FAIL_LIMIT: '2' })
    const from = (address: string, apiKey: string, orderId: string) =>
      post(port, null, order(orderId), { 'x-api-key': apiKey, 'x-forwarded-for': address })
    for (let i = 0; i < 2; i += 1) expect((await from('203.0.113.9', `mk_${'y'.repeat(43)}`, 'A-0')).status).toBe(401)
    const blocked = await from('203.0.113.9', m.apiKey, 'A-1')
    expect([blocked.status, comparableProblem(blocked.body).code]).toEqual([429, 'rate_limited'])
    expect(Number(header(blocked, 'retry-after'))).toBeGreaterThan(0)
    expect(await invoicesOf(t, m, 'A-1')).toHaveLength(0)
    const answered = await from('203.0.113.10', m.apiKey, 'A-2')
    expect([answered.status, answered.framework]).toEqual([201, 0])
  })

  it.skipIf(SKIP_REDIS)(
    'when limits are shared through Redis, then each fast create takes one token of the shared bucket',
    async () => {
      const { port, m } = await listening({
        REDIS_URL: requireTestRedisUrl(),
        RATE_LIMIT_RPS: '1',
        RATE_LIMIT_BURST: '100',
      })
      const answers = [
        await post(port, m, order('R-1')),
        await post(port, m, order('R-2')),
        await post(port, m, order('R-1', { amount: '2.00' })),
      ]
      expect(answers.map((a) => [a.status, a.framework])).toEqual([
        [201, 0],
        [201, 0],
        [409, 1],
      ])
      const left = answers.map(remaining)
      expect([(left[0] as number) - (left[1] as number), (left[1] as number) - (left[2] as number)]).toEqual([1, 1])
    },
  )

  it('when a body arrives in pieces, and creates follow one another on one connection, then each is answered in order', async () => {
    const { t, port, m } = await listening()
    const socket = await connected(port)
    const received = collected(socket)
    const request = (body: string) =>
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: ${m.apiKey}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    const first = request(order('P-1'))
    socket.write(first.slice(0, -10))
    await sleep(30)
    socket.write(first.slice(-10))
    // then, at once on the same connection: one the fast path replays to the framework, then one it answers (a body
    // that is not JSON is not among them: the framework closes the connection after it, as the client may send more)
    socket.write(request(order('P-2', { amount: '1.001' })) + request(order('P-3')))
    await until('three answers', () => statusLines(received()).length === 3, { ms: 5_000, everyMs: 10 })
    socket.destroy()
    expect(statusLines(received())).toEqual([
      'HTTP/1.1 201 Created',
      'HTTP/1.1 400 Bad Request',
      'HTTP/1.1 201 Created',
    ])
    expect(received()).toContain('"code":"validation_failed"')
    expect(received().toLowerCase()).not.toContain('connection: close')
    expect(await invoicesOf(t, m, 'P-3')).toHaveLength(1)
  })

  it('when a client asks to continue before its body, then it is told to, and the fast path answers the create', async () => {
    const { t, port, m } = await listening()
    const socket = await connected(port)
    const received = collected(socket)
    const body = order('X-1', { comment: 'x'.repeat(1000) }) // curl asks so for a body over 1 KiB
    const { framework } = await frameworkHandlersDuring(async () => {
      socket.write(
        `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: ${m.apiKey}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
      )
      await until('100 Continue', () => received().startsWith('HTTP/1.1 100 Continue\r\n'), { ms: 5_000, everyMs: 10 })
      socket.write(body)
      await until('the answer', () => statusLines(received()).length === 2, { ms: 5_000, everyMs: 10 })
    }).finally(() => socket.destroy())
    expect(statusLines(received())).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 201 Created'])
    expect(framework).toBe(0)
    expect(await invoicesOf(t, m, 'X-1')).toHaveLength(1)
  })

  it('when a client goes away before its whole body, then nothing is created and the service answers the next one', async () => {
    const { t, port, m } = await listening()
    const socket = await connected(port)
    const body = order('G-1')
    socket.write(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: ${m.apiKey}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    )
    await sleep(30)
    socket.destroy()
    await sleep(30)
    expect((await post(port, m, order('G-2'))).status).toBe(201)
    expect(await invoicesOf(t, m, 'G-1')).toHaveLength(0)
  })

  it('when the app begins to close while a create runs, then the framework answers its outcome, with Connection: close, and creates it once', async () => {
    const { t, port, m } = await listening()
    const socket = await connected(port)
    const received = collected(socket)
    const body = order('S-1')
    // the headers and part of the body before the close (the connection is not idle), the rest after it began
    socket.write(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: ${m.apiKey}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    )
    await sleep(50)
    const invoices = t.rt.store.invoices
    const closed = t.app.close()
    socket.write(body.slice(10))
    await closed
    await until('the answer', () => received().includes('"is_new":true'), { ms: 5_000, everyMs: 10 })
    socket.destroy()
    expect(statusLines(received())).toEqual(['HTTP/1.1 201 Created'])
    expect(received().toLowerCase()).toContain('\r\nconnection: close\r\n')
    const all = await invoices.list({ merchantId: m.id as never, limit: 10, now: t.clock.now() })
    expect(all.filter((i) => i.orderId === 'S-1')).toHaveLength(1)
  })
})

async function connected(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {}) // a connection the service closes is seen in what it received
  await once(socket, 'connect')
  return socket
}

function collected(socket: Socket): () => string {
  let text = ''
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8')
  })
  return () => text
}

/** The status lines of the answers in `text` (one answer's body runs into the next answer's status line). */
const statusLines = (text: string) => text.match(/HTTP\/1\.1 \d{3} [A-Za-z ]+(?=\r\n)/g) ?? []
