/**
 * Requests node's HTTP parser refuses before the app sees them (docs/api.md#errors): still a problem+json answer with a
 * stable code and an `x-request-id`, over a real socket (inject() never goes through the parser).
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

let t: TestApp
let m: TestMerchant
let port: number
beforeAll(async () => {
  t = await buildTestApp()
  m = await t.merchant()
  port = await t.listen()
})
afterAll(async () => t.close())

/** Writes `raw` on a fresh connection and reads until the server closes it. */
function exchange(raw: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const [head = '', body = ''] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      )
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body })
    })
    socket.end(raw)
  })
}

/** Writes `raw` on a fresh connection without ending it (a client that pipelines waits for its answers); the text until the server closes. */
function pipelined(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.write(raw)
  })
}

/** A create request for `orderId` with this test's key, as raw HTTP/1.1. */
function createRequest(orderId: string): string {
  const body = JSON.stringify({ order_id: orderId, amount: '9.00', currency: 'RUB' })
  return `POST /api/v1/invoices HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${m.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

const MALFORMED = `GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`

describe('requests the HTTP parser refuses (docs/api.md#errors)', () => {
  it.each([
    [
      'a header line without a colon',
      400,
      'validation_failed',
      `GET /api/v1/invoices HTTP/1.1\r\nHost: x\r\nBad Header y\r\n\r\n`,
    ],
    [
      'a space in a header name',
      400,
      'validation_failed',
      `GET /api/v1/invoices HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`,
    ],
    [
      'a malformed chunked body',
      400,
      'validation_failed',
      `POST /api/v1/invoices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
    [
      'headers over 16 KiB',
      431,
      'payload_too_large',
      `GET /api/v1/invoices HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    ],
  ])(
    'when a request has %s, then %i %s with a problem+json body and an x-request-id',
    async (_name, status, code, raw) => {
      const res = await exchange(raw)
      expect(res.status).toBe(status)
      expect(res.headers['content-type']).toBe('application/problem+json')
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body))
      const p = JSON.parse(res.body)
      expect(p).toMatchObject({ type: 'about:blank', status, code })
      expect(typeof p.detail).toBe('string')
    },
  )

  it('when an HTTP/1.1 request has no Host, then 400 validation_failed naming host as a problem with an x-request-id (HTTP/1.0 needs none)', async () => {
    const res = await exchange(`GET /healthz HTTP/1.1\r\n\r\n`)
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(JSON.parse(res.body)).toMatchObject({ code: 'validation_failed', errors: [{ field: 'host' }] })
    expect((await exchange(`GET /healthz HTTP/1.0\r\n\r\n`)).status).toBe(200)
  })

  it('when Expect is not 100-continue, then 417 as a problem with an x-request-id', async () => {
    const res = await exchange(
      `POST /api/v1/invoices HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    )
    expect(res.status).toBe(417)
    expect(res.headers['content-type']).toBe('application/problem+json')
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(JSON.parse(res.body)).toMatchObject({
      status: 417,
      code: 'validation_failed',
      errors: [{ field: 'expect' }],
    })
  })

  it('when good requests are pipelined before a malformed one, then the good ones are answered first, then the refusal', async () => {
    const text = await pipelined(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n${createRequest('PIPE-1')}${MALFORMED}`)
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((x) => x[1])
    expect(statuses).toEqual(['200', '201', '400'])
    expect(text).toContain('"order_id"')
    expect(text).toContain('"code":"validation_failed"')
  })

  it('when several creates are pipelined before a malformed request, then every one of them is answered before the refusal', async () => {
    const creates = Array.from({ length: 8 }, (_, i) => createRequest(`PIPE-MANY-${i}`))
    const text = await pipelined(`${creates.join('')}${MALFORMED}`)
    // each created invoice answered (an invoice made but never answered leaves the shop unsure), then the refusal
    expect([...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((x) => x[1])).toEqual([...creates.map(() => '201'), '400'])
  })

  it('when a refused request has gone, then the server still answers the next one', async () => {
    await exchange(`GET / HTTP/1.1\r\nBad Header y\r\n\r\n`)
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/invoices?limit=1`, { headers: { 'x-api-key': m.apiKey } })
    expect(res.status).toBe(200)
  })
})

describe('a request that does not arrive in full (slow-loris on the body)', () => {
  let slow: TestApp
  let slowPort: number
  beforeAll(async () => {
    // the production timeout is 30 s, checked every 5 s; the same mechanism, scaled down
    slow = await buildTestApp({}, { requestTimeout: { ms: 1000, checkEveryMs: 100 } })
    slowPort = await slow.listen()
  })
  afterAll(async () => slow.close())

  /** Sends headers promising 16,000 bytes, then `drip` more bytes every `everyMs`; resolves when the server closes. */
  function stall(drip: number, everyMs: number): Promise<{ ms: number; answer: string }> {
    return new Promise((resolve, reject) => {
      const started = Date.now()
      const socket = connect(slowPort, '127.0.0.1')
      let answer = ''
      socket.on('data', (c) => (answer += c.toString('utf8')))
      socket.on('error', reject)
      const timer = setInterval(() => socket.writable && socket.write('x'.repeat(drip)), everyMs)
      socket.on('close', () => {
        clearInterval(timer)
        resolve({ ms: Date.now() - started, answer })
      })
      // a public route that reads its body (the payment page's test controls): no key is needed to hold a connection
      socket.write(
        `POST /pay/00000000-0000-7000-8000-000000000000/simulate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 16000\r\n\r\n{`,
      )
    })
  }

  it.each([
    ['stops after one byte', 0, 1000],
    ['drips a byte every 200 ms', 1, 200],
  ])(
    'when the body %s, then the server answers 408 and closes the connection once the timeout has passed',
    async (_name, drip, everyMs) => {
      const { ms, answer } = await stall(drip, everyMs)
      expect(ms).toBeGreaterThanOrEqual(900)
      expect(ms).toBeLessThan(5000)
      expect(answer).toMatch(/^HTTP\/1\.1 408 /)
      expect(answer).toContain('application/problem+json')
    },
  )

  it('when a request is answered before its body arrived (no API key) and the body then stalls, then the connection closes at the timeout without a second answer', async () => {
    const { ms, answer } = await new Promise<{ ms: number; answer: string }>((resolve, reject) => {
      const started = Date.now()
      const socket = connect(slowPort, '127.0.0.1')
      let text = ''
      socket.on('data', (c) => (text += c.toString('utf8')))
      socket.on('error', reject)
      socket.on('close', () => resolve({ ms: Date.now() - started, answer: text }))
      // 100 bytes promised, 5 sent: the key check answers 401 at once, before the body is read
      socket.write(
        `POST /api/v1/invoices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
      )
    })
    // one answer, to the one request sent: a 408 after it would be read as the answer to the client's next request
    expect([...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((x) => x[1])).toEqual(['401'])
    expect(answer).toContain('"code":"missing_api_key"')
    expect(ms).toBeGreaterThanOrEqual(900)
    expect(ms).toBeLessThan(5000)
  })

  it('when a request is answered before its body arrived and the body then comes in full, then the connection serves the next request', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(slowPort, '127.0.0.1')
      let text = ''
      socket.on('data', (c) => {
        text += c.toString('utf8')
        if ((text.match(/HTTP\/1\.1 /g) ?? []).length === 2 && text.endsWith('}')) socket.end()
      })
      socket.on('error', reject)
      socket.on('close', () => resolve(text))
      socket.write(
        `POST /api/v1/invoices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a":`,
      )
      setTimeout(() => socket.write(`"bc"}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`), 300)
    })
    expect([...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((x) => x[1])).toEqual(['401', '200'])
  })

  it('when the service runs with its own settings, then a request has 30 s to arrive in full', () => {
    expect(t.app.server.requestTimeout).toBe(30_000)
  })

  it('when a request arrives in time, then the timeout changes nothing', async () => {
    const res = await fetch(`http://127.0.0.1:${slowPort}/healthz`)
    expect(res.status).toBe(200)
  })
})
