/**
 * The invoice service as a real process (the checkout's bin/invoice-service.js, built by the root `npm ci`), on its
 * own SQLite file and a free port, with the sandbox provider; and a merchant made with its CLI, as an operator would.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = join(__dirname, '..', '..', '..', '..')
const BIN = join(ROOT, 'bin', 'invoice-service.js')

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

export interface Merchant {
  merchant_id: string
  api_key: string
  webhook_secret: string
}

export interface InvoiceService {
  readonly url: string
  readonly merchant: Merchant
  /** What the process wrote so far. */
  output(): string
  stop(): Promise<void>
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { env }, (err, stdout, stderr) =>
      err ? reject(new Error(`invoice-service ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    )
  })
}

export async function startInvoiceService(): Promise<InvoiceService> {
  const dir = mkdtempSync(join(tmpdir(), 'medusa-invoice-'))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
    PORT: String(port),
    PUBLIC_URL: url,
    SANDBOX: 'true',
    // the Medusa app of the test listens on loopback over http
    CALLBACK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'warn',
  }
  await cli(['migrate'], env)
  const merchant = JSON.parse(await cli(['merchant', 'create', '--name', 'Medusa Shop', '--json'], env)) as Merchant
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'serve'], { env })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`the invoice service did not get ready:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    merchant,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The buyer's sandbox payment, as the payment page's test controls send it (POST /pay/{id}/simulate). */
export async function simulate(service: InvoiceService, invoiceId: string, outcome: 'paid' | 'hold' | 'failed') {
  const res = await fetch(`${service.url}/pay/${invoiceId}/simulate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcome }),
  })
  if (res.status !== 200) throw new Error(`simulate ${outcome}: HTTP ${res.status} ${await res.text()}`)
}

/** A merchant API call of the service (GET or POST), its JSON. */
export async function serviceApi<T>(service: InvoiceService, method: 'GET' | 'POST', path: string): Promise<T> {
  const res = await fetch(`${service.url}${path}`, { method, headers: { 'x-api-key': service.merchant.api_key } })
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}
