import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BROUGHT, MINIMUM, isSupported } from '../../bin/supported-node.js'
import { BIN, ROOT, startServer, stopServer } from '../helpers/server-process.js'

// docs/operations.md#nodejs-versions: on a Node older than the service supports, the npm scripts and the
// `invoice-service` command run on the Node that `npm install` brought from the npm registry.

describe('which Node.js versions are supported', () => {
  it.each([
    ['v24.21.0', true],
    ['22.13.0', true],
    ['v22.23.3', true],
    ['v26.1.0', true],
    ['v22.12.0', false],
    ['v20.20.2', false],
    ['v18.20.8', false],
  ])('when the version is %s, then supported is %s', (version, supported) => {
    expect(isSupported(version)).toBe(supported)
  })

  it('when --fetch is not given both a version and a directory, then it is a usage error (64)', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'supported-node.js'), '--fetch', '24.21.0'], {
      encoding: 'utf8',
    })
    expect(r.status).toBe(64)
    expect(r.stderr).toContain('usage: node bin/supported-node.js --fetch VERSION DIR')
  })

  it('when --fetch asks for a version the registry does not have, then it exits 1 with npm’s reason and leaves nothing', () => {
    const home = mkdtempSync(join(tmpdir(), 'fetch-node-'))
    try {
      const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'supported-node.js'), '--fetch', '0.0.1', home], {
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(/npm pack node-\w+-\w+@0\.0\.1 failed: .*ETARGET/s)
      expect(readdirSync(home)).toEqual([])
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('when package.json states the engines, then they name the same minimum', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
      engines: { node: string }
    }
    expect(pkg.engines.node).toBe(`>=${MINIMUM.join('.')}`)
  })
})

// An unsupported Node to start things with: UNSUPPORTED_NODE (set by .ci/run), else this machine's own node if it
// is an old one. In CI the tests must run, so there a missing one fails instead of skipping.
const ci = (process.env['CI'] ?? '') !== '' && process.env['CI'] !== 'false'
const candidate = process.env['UNSUPPORTED_NODE'] ?? '/usr/bin/node'
const oldVersion = existsSync(candidate)
  ? execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim()
  : undefined
const oldNode = oldVersion !== undefined && !isSupported(oldVersion) ? candidate : undefined
if (ci && oldNode === undefined) throw new Error(`CI needs UNSUPPORTED_NODE (an old Node.js); ${candidate} is not one`)

describe.skipIf(oldNode === undefined)(`started on an unsupported Node (${oldVersion ?? 'none here'})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'supported-node-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('when a script is run through bin/supported-node.js, then it runs on the brought Node with its arguments', () => {
    // the first run may fetch Node from the npm registry (about 15 s) if npm install ran on a supported Node
    const out = execFileSync(
      oldNode!,
      [join(ROOT, 'bin', 'supported-node.js'), join(import.meta.dirname, 'print-runtime.fixture.mjs'), 'a b', '--c'],
      { encoding: 'utf8', timeout: 120_000 },
    )
    expect(JSON.parse(out)).toEqual({ version: `v${BROUGHT}`, args: ['a b', '--c'] })
  }, 150_000)

  it('when the CLI is run, then it works (better-sqlite3 13 cannot load on that Node) and keeps its exit code', () => {
    const env = { PATH: process.env['PATH'] ?? '', DATABASE_URL: `sqlite:${join(dir, 'cli.db')}` }
    const migrated = spawnSync(oldNode!, [BIN, 'migrate'], { encoding: 'utf8', env, timeout: 120_000 })
    expect(migrated.stderr).toBe('')
    expect(migrated.status).toBe(0)
    const usage = spawnSync(oldNode!, [BIN, 'no-such-command'], { encoding: 'utf8', env, timeout: 60_000 })
    expect(usage.status).toBe(64)
    expect(usage.stderr).toContain('no-such-command')
  }, 150_000)

  it('when the service is served and gets SIGTERM, then it answers, shuts down cleanly and exits 0', async () => {
    const server = await startServer(
      { DATABASE_URL: `sqlite:${join(dir, 'serve.db')}` },
      { node: oldNode!, readyTimeoutMs: 120_000 },
    )
    const health = await fetch(`${server.base}/healthz`)
    expect(health.status).toBe(200)
    const { code, signal } = await stopServer(server)
    expect({ code, signal }).toEqual({ code: 0, signal: null })
    expect(server.output).toContain('shutting down')
    // the service itself (the brought Node's process) is gone too: nothing listens any more
    await expect(fetch(`${server.base}/healthz`)).rejects.toThrow()
  }, 150_000)
})
