import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/free-port.js'

const ROOT = join(import.meta.dirname, '..', '..')

describe('invoice-service serve (the npm start path)', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'invoice-serve-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it.each([
    ['the default currencies', {}],
    ['JPY first (no decimals)', { CURRENCIES: 'JPY,RUB' }],
  ])(
    'when started on an empty database with %s, then it prints the demo merchant and its curl line creates an invoice; SIGTERM exits 0',
    async (name, extra) => {
      const port = await freePort()
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'invoice-service.js'), 'serve'], {
        env: {
          PATH: process.env['PATH'] ?? '',
          PORT: String(port),
          DATABASE_URL: `sqlite:${join(dir, `serve-${name.length}.db`)}`,
          LOG_LEVEL: 'info',
          ...extra,
        },
      })
      let out = ''
      child.stdout.on('data', (d: Buffer) => (out += d.toString()))
      const exited = new Promise<number | string | null>((resolve) =>
        child.on('exit', (code, signal) => resolve(code ?? signal)),
      )
      try {
        const deadline = Date.now() + 20_000
        while (!out.includes('Server listening') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
        expect(out).toContain('Demo merchant created')
        const curl = out.split('\n').find((l) => l.includes('curl -s -X POST'))
        expect(curl).toBeDefined()
        // run the printed command's request as written: URL, headers and body from the line itself
        const url = /(http:\/\/\S+\/api\/v1\/invoices)/.exec(curl!)?.[1]
        const key = /X-Api-Key: (mk_[A-Za-z0-9_-]+)/.exec(curl!)?.[1]
        const body = /-d '([^']+)'/.exec(curl!)?.[1]
        const res = await fetch(url!, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': key! },
          body: body!,
        })
        expect(res.status, await res.clone().text()).toBe(201)
        const created = (await res.json()) as { is_new: boolean; pay_url: string }
        expect(created.is_new).toBe(true)
        expect(created.pay_url).toContain(`http://localhost:${port}/pay/`)
        // the dashboard's one-time link for the demo owner opens the page where the password is set
        const link = /^ {2}(http:\/\/\S+\/dashboard\/invite\/[A-Za-z0-9_-]{43})$/m.exec(out)?.[1]
        expect(link, out).toBeDefined()
        const invite = await fetch(link!)
        expect(invite.status).toBe(200)
        expect(await invite.text()).toContain('owner@demo.example')
        // the access log carries the request id and never the key
        const logDeadline = Date.now() + 5000
        while (!out.includes('request completed') && Date.now() < logDeadline)
          await new Promise((r) => setTimeout(r, 50))
        expect(out).toMatch(/"reqId":"[0-9a-f-]{36}".*"request completed"/)
        expect(
          out
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .join('\n'),
        ).not.toContain(key!)
        // the invitation's request in the access log: its path without the token (the log is written asynchronously)
        const inviteLogDeadline = Date.now() + 5000
        while (!out.includes('/dashboard/invite/[redacted]') && Date.now() < inviteLogDeadline)
          await new Promise((r) => setTimeout(r, 50))
        expect(out).toContain('/dashboard/invite/[redacted]')
        expect(
          out
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .join('\n'),
        ).not.toContain(link!.split('/').pop()!)
      } finally {
        child.kill('SIGTERM')
      }
      expect(await exited).toBe(0)
    },
  )

  it.each([
    ['on (the default)', {}, true],
    ['off', { SANDBOX: 'false' }, false],
    [
      'on, with every service bound to an acquirer',
      {
        SERVICE_PROVIDERS: 'card=stripe,sbp=stripe',
        STRIPE_SECRET_KEY: 'sk_test_unused',
        STRIPE_WEBHOOK_SECRET: 'whsec_unused',
        STRIPE_API_URL: 'http://127.0.0.1:9',
      },
      false,
    ],
  ])(
    'when started in production with the sandbox %s, then the log warns about its test controls only when it is on for some service',
    async (_name, extra, warned) => {
      const port = await freePort()
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'invoice-service.js'), 'serve'], {
        env: {
          PATH: process.env['PATH'] ?? '',
          PORT: String(port),
          DATABASE_URL: `sqlite:${join(dir, `prod-${String(warned)}.db`)}`,
          LOG_LEVEL: 'info',
          NODE_ENV: 'production',
          ...extra,
        },
      })
      let out = ''
      child.stdout.on('data', (d: Buffer) => (out += d.toString()))
      const exited = new Promise<number | string | null>((resolve) =>
        child.on('exit', (code, signal) => resolve(code ?? signal)),
      )
      try {
        const deadline = Date.now() + 20_000
        while (!out.includes('Server listening') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
        expect(out).toContain('Server listening')
        const warning = out.split('\n').find((l) => l.includes('SANDBOX is on'))
        if (warned) expect(JSON.parse(warning!)).toMatchObject({ level: 40 })
        else expect(warning).toBeUndefined()
      } finally {
        child.kill('SIGTERM')
      }
      expect(await exited).toBe(0)
    },
  )

  it('when a configuration value is bad, then the start stops naming the variable', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'invoice-service.js'), 'serve'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        PORT: 'eighty',
        SQLITE_SYNCHRONOUS: 'sometimes',
        DATABASE_URL: `sqlite:${join(dir, 'bad.db')}`,
      },
    })
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code).toBe(78)
    expect(err).toContain('PORT')
    expect(err).toContain('SQLITE_SYNCHRONOUS')
  })
})
