/**
 * No secret in the logs at LOG_LEVEL=debug (docs/architecture.md#logs-and-comments, docs/security.md#threats-and-what-stops-them): the real
 * server process with its production logger (createLogger: pino, its redaction) and the real CLI, through a
 * whole merchant's life — merchant and keys from the CLI, invoices, a hold captured, webhooks failed, retried,
 * delivered and signed, a secret rotation (two signatures), a test event, a redelivery, a key revoked, failed
 * authentications, a key pasted into a URL by mistake. Everything the server wrote (stdout and stderr) and the
 * CLI's stderr is searched for the API keys, their SHA-256 hashes (hex, base64, base64url), and the webhook
 * secrets (whole and their base64 part). The in-process variant of this check, at trace level over the app's own
 * logger, is in test/api/webhooks.endpoints.test.ts ("secrets never reach the logs").
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createMerchantWithCli, runCli, startServer, stopServer } from '../helpers/server-process.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

const dir = mkdtempSync(join(tmpdir(), 'invoice-debug-log-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('secrets at LOG_LEVEL=debug', () => {
  it('when a merchant goes through keys, invoices, webhooks, rotation, revocation and failed authentication, then no log line of the server or the CLI carries a key, a key hash or a webhook secret', async () => {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'debug.db')}`,
      NODE_ENV: 'production', // no demo merchant: its credentials are printed on stdout by design
      LOG_LEVEL: 'debug',
      KEY_CACHE_TTL: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      CALLBACK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.2',
    }
    const cliErr: string[] = []
    const cli = async (...args: string[]) => {
      const r = await runCli([...args, '--json'], env)
      cliErr.push(r.stderr)
      return JSON.parse(r.stdout) as Record<string, string>
    }
    const m = await createMerchantWithCli(env)
    const rx = await startReceiver({ secrets: [m.webhook_secret], respond: (_h, n) => (n === 1 ? 500 : 200) })
    const server = await startServer(env)
    let key2 = ''
    let secret2 = ''
    try {
      key2 = (await cli('key', 'create', '--merchant', m.merchant_id)).api_key!
      const call = (method: string, path: string, key: string | undefined, body?: unknown) =>
        fetch(`${server.base}${path}`, {
          method,
          headers: {
            ...(key === undefined ? {} : { 'x-api-key': key }),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      const simulate = async (id: string, outcome: string) =>
        expect((await call('POST', `/pay/${id}/simulate`, undefined, { outcome })).status).toBe(200)

      // an invoice held and captured; its first webhook fails once and is retried
      const a = (await (
        await call('POST', '/api/v1/invoices', m.api_key, {
          order_id: 'D-1',
          amount: '10.00',
          currency: 'RUB',
          callback_url: `${rx.url}?token=merchant-own-token`,
        })
      ).json()) as { order_id: string }
      await simulate(a.order_id, 'hold')
      expect((await call('POST', `/api/v1/invoices/${a.order_id}/capture`, key2)).status).toBe(200)
      await rx.waitFor(3)

      // the webhook secret rotated: the next webhook carries both signatures
      secret2 = (await cli('webhook-secret', 'rotate', '--merchant', m.merchant_id)).webhook_secret!
      rx.secrets = [m.webhook_secret, secret2]
      const b = (await (
        await call('POST', '/api/v1/invoices', key2, {
          order_id: 'D-2',
          amount: '20.00',
          currency: 'RUB',
          callback_url: rx.url,
        })
      ).json()) as { order_id: string }
      await simulate(b.order_id, 'paid')
      const [signedTwice] = await rx.waitFor(1, { where: (h) => h.json.data['id'] === b.order_id })
      expect(signedTwice!.verifiedWith).toHaveLength(2)

      // a test event, the delivery log and a redelivery
      expect((await call('POST', '/api/v1/webhooks/test', key2, { url: rx.url })).status).toBe(200)
      const log = (await (await call('GET', '/api/v1/webhooks/deliveries', key2)).json()) as { data: { id: string }[] }
      expect((await call('POST', `/api/v1/webhooks/deliveries/${log.data[0]!.id}/retry`, key2)).status).toBe(202)
      await rx.waitFor(6) // hold (500, then 200), paid, the second invoice, the test event, the redelivery

      // the first key revoked; failed authentications of every kind
      expect(JSON.stringify(await cli('key', 'list', '--merchant', m.merchant_id))).not.toContain(m.api_key)
      await cli('key', 'revoke', m.api_key_id)
      const info = `/api/invoice/getInfo?merchant_id=${m.merchant_id}&invoice_id=${a.order_id}`
      expect((await call('GET', info, m.api_key)).status).toBe(401) // revoked
      expect((await call('GET', info, undefined)).status).toBe(401) // missing
      expect((await call('GET', info, `${key2}x`)).status).toBe(401) // wrong
      expect((await call('GET', info, 'mk_short')).status).toBe(401)
      // a client that pastes its key into the URL as well (ignored: unknown query parameters are)
      expect((await call('GET', `${info}&api_key=${key2}`, key2)).status).toBe(200)
      // ... with its underscore, or every character, percent-encoded
      expect((await call('GET', `${info}&api_key=mk%5F${key2.slice(3)}`, key2)).status).toBe(200)
      expect((await call('GET', `${info}&api_key=${percentEncoded(key2)}`, key2)).status).toBe(200)
      // a malformed body: the problem answer and the log name the field, not the header
      expect(
        (await call('POST', '/api/v1/invoices', key2, { order_id: 'D-3', amount: '1.005', currency: 'RUB' })).status,
      ).toBe(400)
      // the key, or its hash, in the wrong header: as the request id (it would be echoed and logged), or in Expect
      const keyHashHex = createHash('sha256').update(key2).digest('hex')
      for (const requestId of [key2, keyHashHex, `trace-${key2}`]) {
        const res = await fetch(`${server.base}${info}`, { headers: { 'x-api-key': key2, 'x-request-id': requestId } })
        expect(res.status).toBe(200)
        expect(res.headers.get('x-request-id')).not.toBe(requestId)
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      }
      // (fetch refuses to send Expect; node:http does)
      const expectStatus = await new Promise<number | undefined>((resolve, reject) => {
        request(`${server.base}/healthz`, { headers: { expect: key2 } }, (res) => {
          res.resume()
          resolve(res.statusCode)
        })
          .on('error', reject)
          .end()
      })
      expect(expectStatus).toBe(417)
    } finally {
      await stopServer(server) // SIGTERM: the asynchronous log is flushed before the exit
      await rx.close()
    }

    const output = server.output + cliErr.join('')
    const lines = server.output.split('\n').filter((l) => l.startsWith('{'))
    const levels = new Set(lines.map((l) => (JSON.parse(l) as { level: number }).level))
    expect(levels.has(20), 'debug lines were written').toBe(true) // e.g. "webhook delivered"
    expect(lines.some((l) => l.includes('webhook attempt failed; will retry'))).toBe(true)
    expect(lines.filter((l) => l.includes('request completed')).length).toBeGreaterThan(10)

    expect(key2).toMatch(/^mk_/)
    expect(secret2).toMatch(/^whsec_/)
    const forbidden: Record<string, string> = { 'callback_url token': 'merchant-own-token' }
    for (const [name, key] of [
      ['first key', m.api_key],
      ['second key', key2],
    ] as const) {
      const hash = createHash('sha256').update(key).digest()
      forbidden[name] = key
      forbidden[`${name}: the random part`] = key.slice(3)
      forbidden[`${name}: percent-encoded`] = percentEncoded(key).slice(9) // past "mk_" (%6d%6b%5f)
      forbidden[`${name}: hash, hex`] = hash.toString('hex')
      forbidden[`${name}: hash, base64`] = hash.toString('base64')
      forbidden[`${name}: hash, base64url`] = hash.toString('base64url')
    }
    for (const [name, secret] of [
      ['first webhook secret', m.webhook_secret],
      ['rotated webhook secret', secret2],
    ] as const) {
      forbidden[name] = secret
      forbidden[`${name}: its base64 part`] = secret.slice('whsec_'.length)
      forbidden[`${name}: its key bytes, hex`] = Buffer.from(secret.slice('whsec_'.length), 'base64').toString('hex')
    }
    for (const [what, value] of Object.entries(forbidden)) expect(output.includes(value), what).toBe(false)
    expect(output).not.toMatch(/mk_[A-Za-z0-9_-]{10}/)
    expect(output).not.toMatch(/whsec_[A-Za-z0-9+/]/)
  })
})

/** Every character as %xx: still the key to a server that decodes the query. */
function percentEncoded(text: string): string {
  return [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')
}
