/**
 * The transport against real sockets: the connection-time address guard (literal addresses in every spelling,
 * and names through DNS), no redirects, the timeout, and shutdown aborts.
 */
import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer, type AddressInfo } from 'node:net'
import type { LookupAddress } from 'node:dns'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withArticle } from '../../domain/errors.js'
import type { WebhookTransport } from '../../ports/webhook-transport.js'
import { AddressRefusedError, publicOnlyLookup } from './address-guard.js'
import { connectTimeoutFor, createUndiciTransport } from './undici-transport.js'

let server: Server
let port: number
let hits: string[] = []
let answer: (path: string) => { status: number; headers?: Record<string, string> } | 'hang' = () => ({ status: 200 })

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '')
    req.resume()
    req.on('end', () => {
      const a = answer(req.url ?? '')
      if (a === 'hang') return
      res.writeHead(a.status, a.headers).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const send = (t: WebhookTransport, url: string, timeoutMs = 2000, signal?: AbortSignal) =>
  t.send({ url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs, ...(signal && { signal }) })

describe('the webhook transport without WEBHOOK_ALLOW_PRIVATE', () => {
  const guarded = createUndiciTransport({ allowPrivate: false, connectTimeoutMs: 2000 })
  afterAll(() => guarded.close())

  it.each([
    ['127.0.0.1', 'loopback'],
    ['2130706433', 'loopback'], // decimal
    ['0x7f000001', 'loopback'], // hexadecimal
    ['127.1', 'loopback'], // short form
    ['0177.0.0.1', 'loopback'], // octal
    ['0.0.0.0', 'unspecified'], // reaches this host on Linux
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'], // IPv4-mapped IPv6
    ['localhost', 'loopback'], // a name: judged on the address it resolves to
  ])('when the URL host is %s, then the connection is refused as %s and nothing is sent', async (host, cls) => {
    hits = []
    const res = await send(guarded, `http://${host}:${port}/hook`)
    expect(res).toMatchObject({ statusCode: null, failure: 'refused', aborted: false })
    expect(res.error).toContain(`${withArticle(cls)} address`)
    expect(res.error).toContain('WEBHOOK_ALLOW_PRIVATE')
    expect(hits).toEqual([])
  })

  it('when a name does not resolve, then it is a network error, not a refusal', async () => {
    const res = await send(guarded, 'https://no-such-host.invalid/hook')
    expect(res).toMatchObject({ statusCode: null, failure: 'network' })
    expect(res.error).toMatch(/ENOTFOUND|EAI_AGAIN/)
  })
})

describe('the webhook transport with WEBHOOK_ALLOW_PRIVATE', () => {
  const open = createUndiciTransport({ allowPrivate: true, connectTimeoutMs: 2000 })
  afterAll(() => open.close())

  it('when the receiver answers, then its status code and latency come back', async () => {
    hits = []
    answer = () => ({ status: 204 })
    const res = await send(open, `http://127.0.0.1:${port}/ok`)
    expect(res).toMatchObject({ statusCode: 204, error: null, failure: null, aborted: false })
    expect(res.latencyMs).toBeGreaterThanOrEqual(0)
    expect(hits).toEqual(['/ok'])
  })

  it('when the receiver redirects, then the redirect is not followed: the 3xx is the answer', async () => {
    hits = []
    answer = (path) =>
      path === '/from' ? { status: 302, headers: { location: `http://127.0.0.1:${port}/to` } } : { status: 200 }
    const res = await send(open, `http://127.0.0.1:${port}/from`)
    expect(res.statusCode).toBe(302)
    expect(hits).toEqual(['/from'])
  })

  it('when the receiver does not answer in time, then the attempt ends as a timeout', async () => {
    answer = () => 'hang'
    const res = await send(open, `http://127.0.0.1:${port}/slow`, 300)
    expect(res).toMatchObject({
      statusCode: null,
      failure: 'timeout',
      error: 'timeout: no answer within 0.3 s',
      aborted: false,
    })
    expect(res.latencyMs).toBeGreaterThanOrEqual(290)
  })

  it('when connecting takes longer than connectTimeoutMs (a TLS handshake never answered), then the attempt ends then: the setting, not a fixed 10 s', async () => {
    // accepts the connection and never speaks: the https handshake waits
    const silent = createTcpServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const quick = createUndiciTransport({ allowPrivate: true, connectTimeoutMs: 300 })
    try {
      // the attempt's own 5 s do not end a connect under way (undici): the connect timeout does
      const cut = await send(quick, `https://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`, 5000)
      expect(cut).toMatchObject({
        statusCode: null,
        failure: 'network',
        error: 'connection timed out (UND_ERR_CONNECT_TIMEOUT)',
      })
      expect(cut.latencyMs).toBeGreaterThanOrEqual(290)
      expect(cut.latencyMs).toBeLessThan(2500) // undici's connect timer ticks in about 1 s steps
    } finally {
      await quick.close()
      silent.close()
    }
  })

  it('when the receiver answers 200 and then trickles its body, then the attempt ends as that success within about a second, not at the timeout', async () => {
    const trickler = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        const drip = setInterval(() => res.write('x'), 200)
        res.on('close', () => clearInterval(drip))
      })
    })
    await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve))
    try {
      const started = performance.now()
      const res = await send(open, `http://127.0.0.1:${(trickler.address() as AddressInfo).port}/hook`, 10_000)
      expect(res).toMatchObject({ statusCode: 200, error: null, failure: null, aborted: false })
      expect(res.latencyMs).toBeLessThan(500)
      // the slot is held for the answer and a moment of its body, not for WEBHOOK_TIMEOUT
      expect(performance.now() - started).toBeLessThan(2500)
    } finally {
      trickler.closeAllConnections()
      trickler.close()
    }
  })

  it('when WEBHOOK_TIMEOUT is over a second and a half, then the connect timeout is half a second less: undici times it on a half-second clock, and it must end by WEBHOOK_TIMEOUT', () => {
    expect(connectTimeoutFor(10_000)).toBe(9_500)
    expect(connectTimeoutFor(2_000)).toBe(1_500)
    expect(connectTimeoutFor(1_200)).toBe(1_000)
    expect(connectTimeoutFor(300)).toBe(300)
  })

  it('when the caller aborts (shutdown), then the result says aborted', async () => {
    answer = () => 'hang'
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 50)
    const res = await send(open, `http://127.0.0.1:${port}/slow`, 5000, ac.signal)
    expect(res).toMatchObject({ statusCode: null, aborted: true })
  })

  it('when the caller has aborted already, then nothing is sent and the result says aborted at once', async () => {
    hits = []
    answer = () => 'hang'
    const ac = new AbortController()
    ac.abort()
    const started = performance.now()
    const res = await send(open, `http://127.0.0.1:${port}/slow`, 5000, ac.signal)
    expect(res).toMatchObject({ statusCode: null, aborted: true })
    expect(performance.now() - started).toBeLessThan(1000)
    expect(hits).toEqual([])
  })
})

describe('publicOnlyLookup', () => {
  const lookup = (host: string, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
      publicOnlyLookup(host, { all }, (err, address) => resolve({ err, address })),
    )

  it('when a name resolves only to loopback, then the lookup fails with AddressRefusedError', async () => {
    const { err } = await lookup('localhost', false)
    expect(err).toBeInstanceOf(AddressRefusedError)
    expect(err?.message).toMatch(/^address not allowed: localhost resolves to a loopback address/)
    // the address itself is not told to the merchant who reads this message (internal DNS stays private)
    expect(err?.message).not.toMatch(/127\.0\.0\.1|::1/)
    expect((err as AddressRefusedError).address).toMatch(/^(127\.0\.0\.1|::1)$/)
  })

  it('when the address is public, then it is returned in the shape asked for', async () => {
    expect(await lookup('93.184.216.34', false)).toEqual({ err: null, address: '93.184.216.34' })
    expect(await lookup('2606:2800:220:1:248:1893:25c8:1946', true)).toEqual({
      err: null,
      address: [{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }],
    })
  })
})
