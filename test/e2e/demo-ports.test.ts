/**
 * `npm run demo` (examples/demo-shop/demo.js) when a port it needs is taken: one line naming the port and the
 * variable to change, exit 1, and nothing left running — no service on its port, no merchant created.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { freePort } from '../helpers/live-service.js'

const ROOT = join(import.meta.dirname, '..', '..')

async function occupy(port: number): Promise<Server> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return server
}

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

async function runDemo(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const demo = spawn(process.execPath, [join(ROOT, 'examples', 'demo-shop', 'demo.js')], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
  })
  let output = ''
  demo.stdout.on('data', (d: Buffer) => (output += d.toString()))
  demo.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const code = await new Promise<number | null>((resolve) => demo.on('exit', resolve))
  return { code, output }
}

describe('npm run demo with a port taken', () => {
  it.each([
    ['DEMO_SHOP_PORT', 'the demo shop'],
    ['DEMO_SERVICE_PORT', 'the invoice service'],
  ])(
    'when %s is taken, then one line names it and the variable, exit 1, nothing left running',
    async (variable, what) => {
      const dir = mkdtempSync(join(tmpdir(), 'invoice-demo-ports-'))
      const ports = { DEMO_SERVICE_PORT: await freePort(), DEMO_SHOP_PORT: await freePort() }
      const taken = ports[variable as keyof typeof ports]
      const blocker = await occupy(taken)
      try {
        const { code, output } = await runDemo({
          DEMO_SERVICE_PORT: String(ports.DEMO_SERVICE_PORT),
          DEMO_SHOP_PORT: String(ports.DEMO_SHOP_PORT),
          DEMO_DATA_DIR: dir,
        })
        expect(code, output).toBe(1)
        expect(output.trim().split('\n'), output).toHaveLength(1)
        expect(output).toMatch(
          new RegExp(
            `^demo: port ${taken} \\(${what}\\) is taken on 127\\.0\\.0\\.1; .*${variable}=\\d+ npm run demo\\n$`,
          ),
        )
        expect(output).not.toMatch(/\bat .*:\d+:\d+\)/) // no stack trace
        // nothing was started: the other port is free, no merchant was created
        const other = variable === 'DEMO_SHOP_PORT' ? ports.DEMO_SERVICE_PORT : ports.DEMO_SHOP_PORT
        expect(await listening(other)).toBe(false)
        expect(existsSync(join(dir, 'merchant.json'))).toBe(false)
      } finally {
        await new Promise((resolve) => blocker.close(resolve))
        rmSync(dir, { recursive: true, force: true })
      }
    },
  )

  it('when the two ports are the same, then it says so and exits 1', async () => {
    const port = String(await freePort())
    const { code, output } = await runDemo({ DEMO_SERVICE_PORT: port, DEMO_SHOP_PORT: port, DEMO_DATA_DIR: tmpdir() })
    expect(code).toBe(1)
    expect(output).toBe(`demo: DEMO_SERVICE_PORT and DEMO_SHOP_PORT are both ${port}; give them different ports\n`)
  })
})
