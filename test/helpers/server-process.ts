/**
 * The real service as a child process (`bin/invoice-service.js`, built by test/global-setup.ts): started on a
 * free port, ready once /readyz answers 200, its stdout and stderr kept for the test to read.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { freePort } from './free-port.js'

export { freePort }

export const ROOT = join(import.meta.dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'invoice-service.js')

export interface ServerProcess {
  readonly base: string
  readonly port: number
  readonly child: ChildProcessWithoutNullStreams
  /** Resolves when the process has exited: its code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>
  /** Everything it wrote to stdout and stderr so far. */
  readonly output: string
}

/**
 * Starts `invoice-service serve` with `env` (plus PATH and PORT) and waits until /readyz answers 200; on `opts.node`
 * if given, else on the Node running the tests.
 */
export async function startServer(
  env: Record<string, string>,
  opts: { port?: number; readyTimeoutMs?: number; node?: string } = {},
): Promise<ServerProcess> {
  const port = opts.port ?? (await freePort())
  const child = spawn(opts.node ?? process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env['PATH'] ?? '', PORT: String(port), ...env },
  })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const server: ServerProcess = {
    base: `http://127.0.0.1:${port}`,
    port,
    child,
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() }))),
    get output() {
      return output
    },
  }
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 20_000)
  for (;;) {
    try {
      if ((await fetch(`${server.base}/readyz`)).status === 200) return server
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`serve did not get ready:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves with the exit. */
export async function stopServer(
  server: ServerProcess,
  graceMs = 10_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM')
  const timer = setTimeout(() => server.child.kill('SIGKILL'), graceMs)
  try {
    return await server.exited
  } finally {
    clearTimeout(timer)
  }
}

/** Runs the CLI (`invoice-service …args`) with `env`; resolves with its stdout, rejects on a non-zero exit. */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env['PATH'] ?? '', ...env } },
      (err, stdout, stderr) => {
        if (err !== null) reject(Object.assign(err, { stdout, stderr }))
        else resolve({ stdout, stderr })
      },
    )
  })
}

/** `merchant create --json` through the CLI, as an operator would. */
export async function createMerchantWithCli(
  env: Record<string, string>,
  name = 'Shop',
): Promise<{ merchant_id: string; api_key: string; api_key_id: string; webhook_secret: string }> {
  return JSON.parse((await runCli(['merchant', 'create', '--name', name, '--json'], env)).stdout) as {
    merchant_id: string
    api_key: string
    api_key_id: string
    webhook_secret: string
  }
}
