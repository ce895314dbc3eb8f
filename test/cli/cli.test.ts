import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../helpers/api.js'
import { buildTestApp } from '../helpers/build-test-app.js'

const run = promisify(execFile)
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'invoice-service.js')

/** Runs the real binary (built dist/) in a child process against a temp SQLite file. */
async function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

// each CLI call is a process of its own (≈ 1 s, more on a loaded machine) and a test makes up to eight of them
describe('invoice-service CLI (child process)', { timeout: 120_000 }, () => {
  let dir: string
  let env: Record<string, string>
  beforeAll(async () => {
    // the binary runs the compiled code, built by test/global-setup.ts
    dir = mkdtempSync(join(tmpdir(), 'invoice-cli-'))
    env = { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}` }
  }, 120_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('when migrate runs, then it succeeds and is idempotent', async () => {
    expect((await cli(['migrate'], env)).code).toBe(0)
    const again = await cli(['migrate', '--json'], env)
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({ migrated: true })
  })

  it('when a merchant is created with --json, then stdout is one JSON object with the credentials', async () => {
    const res = await cli(['merchant', 'create', '--name', 'Acme', '--default-service', 'sbp', '--json'], env)
    expect(res.code).toBe(0)
    expect(res.stderr).toBe('')
    const obj = JSON.parse(res.stdout)
    expect(obj).toMatchObject({ name: 'Acme', default_service: 'sbp' })
    expect(obj.merchant_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(obj.api_key).toMatch(/^mk_[A-Za-z0-9_-]{43}$/)
    expect(obj.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(res.stdout.trim().split('\n')).toHaveLength(1)

    const list = JSON.parse((await cli(['merchant', 'list', '--json'], env)).stdout)
    expect(list.merchants.map((m: { merchant_id: string }) => m.merchant_id)).toContain(obj.merchant_id)

    const human = await cli(['merchant', 'list'], env)
    expect(human.stdout).toContain('Acme')
  })

  it('when keys are created, listed and revoked, then the listing shows prefixes only and the revocation', async () => {
    const m = JSON.parse((await cli(['merchant', 'create', '--name', 'Keys', '--json'], env)).stdout)
    const k = JSON.parse((await cli(['key', 'create', '--merchant', m.merchant_id, '--json'], env)).stdout)
    expect(k.api_key).toMatch(/^mk_/)
    const keys = JSON.parse((await cli(['key', 'list', '--merchant', m.merchant_id, '--json'], env)).stdout).keys
    expect(keys).toHaveLength(2)
    expect(JSON.stringify(keys)).not.toContain(k.api_key)
    expect(JSON.stringify(keys)).not.toContain(m.api_key)
    const revoked = await cli(['key', 'revoke', k.key_id, '--json'], env)
    expect(revoked.code).toBe(0)
    const after = JSON.parse((await cli(['key', 'list', '--merchant', m.merchant_id, '--json'], env)).stdout).keys
    expect(after.find((x: { key_id: string }) => x.key_id === k.key_id).revoked_at).not.toBeNull()
    const twice = await cli(['key', 'revoke', k.key_id], env)
    expect(twice.code).not.toBe(0)
    expect(twice.stderr).toContain('not_found')
  })

  it('when an admin token is created, listed and revoked, then it is printed once and the listing shows its prefix only', async () => {
    const t = JSON.parse((await cli(['admin-token', 'create', '--name', 'ops', '--json'], env)).stdout)
    expect(t).toMatchObject({ name: 'ops' })
    expect(t.token).toMatch(/^adm_[A-Za-z0-9_-]{43}$/)
    const listed = JSON.parse((await cli(['admin-token', 'list', '--json'], env)).stdout).tokens
    expect(listed).toEqual([expect.objectContaining({ token_id: t.token_id, name: 'ops', revoked_at: null })])
    expect(JSON.stringify(listed)).not.toContain(t.token)
    expect((await cli(['admin-token', 'revoke', t.token_id], env)).code).toBe(0)
    const after = JSON.parse((await cli(['admin-token', 'list', '--json'], env)).stdout).tokens
    expect(after[0].revoked_at).not.toBeNull()
    const twice = await cli(['admin-token', 'revoke', t.token_id], env)
    expect(twice.code).toBe(3)
    expect(twice.stderr).toContain('not_found')
  })

  it('when a user is invited or their password reset, then a one-time link on PUBLIC_URL is printed', async () => {
    const m = JSON.parse((await cli(['merchant', 'create', '--name', 'Team', '--json'], env)).stdout)
    const invite = await cli(
      ['user', 'invite', '--merchant', m.merchant_id, '--email', 'viewer@team.example', '--role', 'viewer'],
      {
        ...env,
        PUBLIC_URL: 'https://pay.team.example',
      },
    )
    expect(invite.code, invite.stderr).toBe(0)
    expect(invite.stdout).toMatch(/link: +https:\/\/pay\.team\.example\/dashboard\/invite\/[A-Za-z0-9_-]{43}\n/)
    expect(invite.stdout).toContain('viewer@team.example (viewer of merchant')
    const admin = JSON.parse(
      (await cli(['user', 'invite', '--admin', '--email', 'ops@team.example', '--json'], env)).stdout,
    )
    expect(admin).toMatchObject({ email: 'ops@team.example', role: 'admin', merchant_id: null })
    const reset = JSON.parse(
      (await cli(['user', 'reset-password', '--email', 'ops@team.example', '--json'], env)).stdout,
    )
    expect(reset.url).not.toBe(admin.url)
    expect(
      (await cli(['user', 'invite', '--admin', '--merchant', m.merchant_id, '--email', 'x@team.example'], env)).code,
    ).toBe(64)
    expect((await cli(['user', 'invite', '--email', 'x@team.example'], env)).code).toBe(64)
    expect((await cli(['user', 'reset-password', '--email', 'nobody@team.example'], env)).code).toBe(3)
  })

  it('when a merchant is disabled and enabled, then its status follows', async () => {
    const m = JSON.parse((await cli(['merchant', 'create', '--name', 'Toggle', '--json'], env)).stdout)
    expect(JSON.parse((await cli(['merchant', 'disable', m.merchant_id, '--json'], env)).stdout).status).toBe(
      'disabled',
    )
    expect(JSON.parse((await cli(['merchant', 'enable', m.merchant_id, '--json'], env)).stdout).status).toBe('active')
  })

  it('when the webhook secret is rotated, then a new secret is printed with the old one’s grace end', async () => {
    const m = JSON.parse((await cli(['merchant', 'create', '--name', 'Rotate', '--json'], env)).stdout)
    const r = JSON.parse((await cli(['webhook-secret', 'rotate', '--merchant', m.merchant_id, '--json'], env)).stdout)
    expect(r.webhook_secret).toMatch(/^whsec_/)
    expect(r.webhook_secret).not.toBe(m.webhook_secret)
    expect(Date.parse(r.previous_valid_until) - Date.now()).toBeGreaterThan(86_000_000)
  })

  it('when the input is bad, then stderr explains and the exit code is not 0', async () => {
    const cases: [string[], RegExp][] = [
      [['merchant', 'create'], /missing --name/],
      [['merchant', 'create', '--name', 'X', '--default-service', 'cash'], /default_service/],
      [['merchant', 'disable', 'not-a-uuid'], /merchant_id: must be a UUID/],
      [['merchant', 'enable', '00000000-0000-7000-8000-000000000000'], /no merchant/],
      [['key', 'create'], /missing --merchant/],
      [['frobnicate'], /unknown command/],
      [['merchant', 'list', '--bogus'], /bogus/],
    ]
    for (const [args, message] of cases) {
      const res = await cli(args, env)
      expect(res.code, args.join(' ')).not.toBe(0)
      expect(res.stderr).toMatch(message)
      expect(res.stdout).toBe('')
    }
  })

  it('when a command is given an option it does not take, or one option twice, then a usage error (64) and nothing is done', async () => {
    const cases: [string[], RegExp][] = [
      [['merchant', 'list', '--merchant', 'x'], /merchant list takes no --merchant option/],
      [
        ['key', 'revoke', '00000000-0000-7000-8000-000000000000', '--merchant', 'x'],
        /key revoke takes no --merchant option/,
      ],
      [['key', 'create', '--merchant', 'x', '--name', 'y'], /key create takes no --name option/],
      [['merchant', 'create', '--name', 'A', '--name', 'B', '--json'], /--name is given more than once/],
      [['merchant', 'create', '--name', 'A', '--json', '--json'], /--json is given more than once/],
    ]
    for (const [args, message] of cases) {
      const res = await cli(args, env)
      expect(res.code, args.join(' ')).toBe(64)
      expect(res.stderr, args.join(' ')).toMatch(message)
      expect(res.stdout).toBe('')
    }
    // nothing was created by the refused merchant create
    expect(
      JSON.parse((await cli(['merchant', 'list', '--json'], env)).stdout).merchants.map(
        (m: { name: string }) => m.name,
      ),
    ).not.toContain('B')
  })

  it('when serve gets arguments, or an option comes before it, then a usage error (64) and nothing starts', async () => {
    for (const args of [
      ['serve', '--port', '9999'],
      ['serve', 'extra'],
      ['--json', 'serve'],
    ]) {
      const res = await cli(args, { ...env, PORT: '0' })
      expect(res.code, args.join(' ')).toBe(64)
      expect(res.stderr).toMatch(/serve takes no/)
    }
  })

  it('when --help or a usage error meets a database that cannot be opened, then they are answered without it', async () => {
    // nothing listens on port 1: any command that opened the database would fail with "unavailable"
    const down = { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x' }
    const help = await cli(['--help'], down)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: invoice-service')
    const usage = await cli(['key', 'create'], down)
    expect(usage.code).toBe(64)
    expect(usage.stderr).toMatch(/missing --merchant/)
    // and --help creates no SQLite file in the working directory
    const cwd = mkdtempSync(join(tmpdir(), 'invoice-cli-help-'))
    try {
      await run(process.execPath, [BIN, '--help'], { cwd, env: { PATH: process.env['PATH'] ?? '' } })
      expect(readdirSync(cwd)).toEqual([])
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
    // a command that needs the database still reports it
    const list = await cli(['merchant', 'list'], down)
    expect(list.code).not.toBe(0)
  })

  it('when refund create names a paid invoice, then it is refunded (all that is left without --amount) and too much is refused', async () => {
    // a paid invoice in the same database, made through the API
    const t = await buildTestApp({ DATABASE_URL: env['DATABASE_URL']! }, { db: 'sqlite' })
    let id: string
    try {
      const m = await t.merchant('Refunding Shop')
      id = await api(t).as(m).newInvoice({ amount: '25.00', currency: 'RUB' })
      expect((await api(t).simulate(id, { outcome: 'paid' })).status).toBe(200)
    } finally {
      await t.close()
    }
    const part = await cli(['refund', 'create', '--invoice', id, '--amount', '10', '--reason', 'broken', '--json'], env)
    expect(part.code, part.stderr).toBe(0)
    expect(JSON.parse(part.stdout)).toMatchObject({
      invoice_id: id,
      amount: '10.00',
      status: 'succeeded',
      reason: 'broken',
    })
    expect(part.stdout.trim().split('\n')).toHaveLength(1)
    const rest = await cli(['refund', 'create', '--invoice', id], env)
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.stdout).toMatch(/amount:\s+15\.00 RUB/)
    expect(rest.stdout).toMatch(/status:\s+succeeded/)
    const over = await cli(['refund', 'create', '--invoice', id, '--amount', '0.01'], env)
    expect(over.code).toBe(2)
    expect(over.stderr).toContain('refund_exceeds_amount')
    const missing = await cli(['refund', 'create'], env)
    expect(missing.code).toBe(64)
    expect(missing.stderr).toContain('--invoice')
    const unknown = await cli(['refund', 'create', '--invoice', '00000000-0000-7000-8000-000000000000'], env)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('invoice_not_found')
  })

  it('when the configuration is bad, then the command stops naming the variable', async () => {
    const res = await cli(['merchant', 'list'], { ...env, LOG_LEVEL: 'loud', PORT: 'x' })
    expect(res.code).toBe(78)
    expect(res.stderr).toContain('LOG_LEVEL')
    expect(res.stderr).toContain('PORT')
  })
})
