/**
 * The docs work as written. The snippets marked `<!-- snippet: NAME -->` in README.md and docs/*.md are taken out of
 * the Markdown and run against a spawned service (`bin/invoice-service.js serve` on an SQLite file): the TypeScript
 * webhook receiver is compiled with tsc and run with node, the PHP ones with php-cli, and each gets REAL signed
 * webhooks of an invoice paid through the sandbox. Every `curl` line of README.md and docs/*.md is run too, with the
 * placeholders the docs use filled in, and must answer 2xx. A snippet that drifts breaks the build.
 *
 * php-cli with the curl extension is needed for the PHP snippets: without it they skip locally, and fail in CI.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/live-service.js'
import { until as waitUntil } from '../helpers/until.js'

const ROOT = join(import.meta.dirname, '..', '..')
const ci = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false'
const run = promisify(execFile)

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8')

/** The fenced blocks of a Markdown text: language and body, with the name of a `<!-- snippet: NAME -->` before it. */
function fences(markdown: string): { lang: string; body: string; name: string | undefined }[] {
  const found = []
  const re = /(?:<!-- snippet: (\S+) -->\s*\n)?^( *)```(\w*)\n([\s\S]*?)^\2```$/gm
  for (let m = re.exec(markdown); m !== null; m = re.exec(markdown)) {
    const indent = m[2]!.length
    const body = m[4]!
      .split('\n')
      .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
      .join('\n')
    found.push({ lang: m[3]!, body, name: m[1] })
  }
  return found
}

/**
 * The guide's TypeScript snippets as one module: the client (client.ts), the shop's stand-ins (shop.ts), then every
 * other ts block of that page as the body of a function of the variables the guide names, imports hoisted.
 */
function guideModule(): string {
  const file = DOCS.find((f) => fences(text(f)).some((b) => b.name === 'client.ts'))
  if (file === undefined) throw new Error('no <!-- snippet: client.ts --> in README.md or docs/*.md')
  const blocks = fences(text(file)).filter((b) => b.lang === 'ts' && b.name !== 'webhook-receiver.ts')
  const isImport = (l: string): boolean => /^import .* from '[^']+'$/.test(l)
  const imports = new Set(blocks.flatMap((b) => b.body.split('\n').filter(isImport)))
  const code = (b: { body: string }): string =>
    b.body
      .split('\n')
      .filter((l) => !isImport(l))
      .join('\n')
  const parts = [...imports, ...['client.ts', 'shop.ts'].map((n) => code(blocks.find((b) => b.name === n)!))]
  for (const [n, b] of blocks.filter((b) => b.name === undefined).entries())
    parts.push(
      `export async function snippet${n}(invoiceId: string, body: CreateInvoiceRequest, since: Date) {\n${code(b)}\n}`,
    )
  return parts.join('\n\n')
}

function snippet(name: string): string {
  for (const file of DOCS) {
    const block = fences(text(file)).find((f) => f.name === name)
    if (block !== undefined) return block.body
  }
  throw new Error(`no <!-- snippet: ${name} --> in README.md or docs/*.md`)
}

const phpMissing = ((): string | undefined => {
  const php = spawnSync('php', ['-m'], { encoding: 'utf8' })
  if (php.error !== undefined || php.status !== 0) return 'php-cli is not installed'
  if (!php.stdout.split('\n').includes('curl')) return 'the PHP curl extension (php-curl) is not installed'
  return undefined
})()

interface Merchant {
  merchant_id: string
  api_key: string
  webhook_secret: string
}

interface Service {
  url: string
  merchant: Merchant
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  stop(): Promise<void>
}

const until = (what: string, check: () => boolean | Promise<boolean>): Promise<void> =>
  waitUntil(what, check, { ms: 15_000, everyMs: 100 })

async function startService(dir: string): Promise<Service> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const env = {
    PATH: process.env['PATH'] ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production', // no demo merchant: the one of the CLI, as the guide says
    WEBHOOK_ALLOW_PRIVATE: 'true',
    CALLBACK_ALLOW_HTTP: 'true',
  }
  const bin = join(ROOT, 'bin', 'invoice-service.js')
  const { stdout } = await run(process.execPath, [bin, 'merchant', 'create', '--name', 'Docs Shop', '--json'], { env })
  const merchant = JSON.parse(stdout) as Merchant
  const child = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  await until(`the service at ${url}: ${output}`, async () => {
    if (child.exitCode !== null) throw new Error(`the service exited: ${output}`)
    return fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    )
  })
  return {
    url,
    merchant,
    async api(method, path, body) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { 'x-api-key': merchant.api_key, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      })
      return { status: res.status, body: await res.json() }
    },
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** A process that must be stopped after the test; its output for the failure messages. */
function started(child: ChildProcess): { output: () => string; stop: () => Promise<void> } {
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  return {
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

const listening = (url: string): Promise<boolean> =>
  fetch(url, { method: 'GET' }).then(
    () => true,
    () => false,
  )

/**
 * A receiver from the guide, started on `port`: a real invoice is created with it as callback_url, its order is put
 * in the receiver's store, the invoice is paid through the sandbox, and the receiver must record the order paid.
 * The service's test webhook must be answered 204, and an unsigned request 401.
 */
async function receivesRealWebhooks(
  service: Service,
  receiverUrl: string,
  storeFile: string,
  order: (orderId: string, invoiceId: string) => Record<string, string>,
  output: () => string,
): Promise<void> {
  await until(`the receiver at ${receiverUrl}: ${output()}`, () => listening(receiverUrl))
  const test = await service.api('POST', '/api/v1/webhooks/test', { url: receiverUrl })
  expect(test.body, output()).toMatchObject({ status_code: 204, error: null })
  expect((await fetch(receiverUrl, { method: 'POST', body: '{}' })).status).toBe(401)

  const orderId = `docs-${Math.random().toString(36).slice(2)}`
  const created = await service.api('POST', '/api/v1/invoices', {
    order_id: orderId,
    amount: '100.50',
    currency: 'RUB',
    callback_url: receiverUrl,
  })
  expect(created.status).toBe(201)
  const invoiceId = created.body.order_id as string
  writeFileSync(storeFile, JSON.stringify({ orders: { [orderId]: order(orderId, invoiceId) }, handled: [] }))
  const paid = await fetch(`${service.url}/pay/${invoiceId}/simulate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: 'paid' }),
  })
  expect(paid.status).toBe(200)
  const store = (): { orders: Record<string, { status: string }>; handled: string[] } =>
    JSON.parse(readFileSync(storeFile, 'utf8'))
  // the receiver rewrites its store file while we poll it: a read in the middle of a write is 'not yet'
  const paidNow = (): boolean => {
    try {
      return store().orders[orderId]?.status === 'paid'
    } catch (err) {
      if (err instanceof SyntaxError) return false
      throw err
    }
  }
  await until(`the order to be paid: ${output()}`, paidNow)
  expect(store().handled).toHaveLength(1)
  const deliveries = await service.api('GET', `/api/v1/webhooks/deliveries?invoice_id=${invoiceId}`)
  expect(deliveries.body.data, output()).toEqual([expect.objectContaining({ status: 'succeeded' })])
}

describe('the docs, run as written against a spawned service', () => {
  let dir: string
  let service: Service

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'invoice-docs-'))
    service = await startService(dir)
  })

  afterAll(async () => {
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('the TypeScript snippets compile with tsc, and the webhook receiver records a really paid order', async () => {
    const work = mkdtempSync(join(dir, 'ts-'))
    writeFileSync(join(work, 'webhook-receiver.ts'), snippet('webhook-receiver.ts'))
    writeFileSync(join(work, 'guide.ts'), guideModule())
    writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }))
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir')
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const flags = ['--strict', '--module', 'nodenext', '--target', 'es2022', '--types', 'node', '--outDir', 'out']
    const compiled = spawnSync(process.execPath, [tsc, ...flags, 'webhook-receiver.ts', 'guide.ts'], {
      cwd: work,
      encoding: 'utf8',
    })
    expect(compiled.stdout + compiled.stderr, `tsc; guide.ts:\n${readFileSync(join(work, 'guide.ts'), 'utf8')}`).toBe(
      '',
    )
    expect(compiled.status).toBe(0)

    const port = await freePort()
    const storeFile = join(work, 'store.json')
    const receiver = started(
      spawn(process.execPath, [join(work, 'out', 'webhook-receiver.js')], {
        cwd: work,
        env: {
          PATH: process.env['PATH'] ?? '',
          PORT: String(port),
          INVOICE_WEBHOOK_SECRET: service.merchant.webhook_secret,
          SHOP_STORE_FILE: storeFile,
        },
      }),
    )
    try {
      await receivesRealWebhooks(
        service,
        `http://127.0.0.1:${port}/hooks/invoices`,
        storeFile,
        (id, invoiceId) => ({ id, invoiceId, status: 'pending' }),
        receiver.output,
      )
    } finally {
      await receiver.stop()
    }
  })

  describe.skipIf(phpMissing !== undefined && !ci)(
    `PHP (php-cli)${phpMissing ? `: skipped, ${phpMissing}` : ''}`,
    () => {
      beforeAll(() => {
        // nothing may be skipped in CI: .ci/run installs php-cli and php-curl
        if (phpMissing !== undefined) throw new Error(`${phpMissing}: the PHP snippets of the docs cannot be checked`)
      })

      it('the PHP webhook receiver (php -S) records a really paid order', async () => {
        const work = mkdtempSync(join(dir, 'php-'))
        writeFileSync(join(work, 'webhook-receiver.php'), snippet('webhook-receiver.php'))
        const port = await freePort()
        const storeFile = join(work, 'store.json')
        const receiver = started(
          spawn('php', ['-S', `127.0.0.1:${port}`, 'webhook-receiver.php'], {
            cwd: work,
            env: {
              PATH: process.env['PATH'] ?? '',
              INVOICE_WEBHOOK_SECRET: service.merchant.webhook_secret,
              SHOP_STORE_FILE: storeFile,
            },
          }),
        )
        try {
          await receivesRealWebhooks(
            service,
            `http://127.0.0.1:${port}/hooks/invoices`,
            storeFile,
            (id, invoiceId) => ({ id, invoice_id: invoiceId, status: 'pending' }),
            receiver.output,
          )
        } finally {
          await receiver.stop()
        }
      })

      it("the guide's other PHP snippets run after it, each in the state it is written for", async () => {
        const file = DOCS.find((f) => fences(text(f)).some((b) => b.name === 'shop.php'))!
        const fragments = fences(text(file)).filter((b) => b.lang === 'php' && b.name === undefined)
        expect(fragments.length).toBeGreaterThan(1)
        const work = mkdtempSync(join(dir, 'php-'))
        const invoice = (order_id: string) =>
          service.api('POST', '/api/v1/invoices', { order_id, amount: '5.00', currency: 'RUB' })
        const pending = (await invoice('A-1001-docs')).body.order_id as string
        const held = (await invoice('A-1002-docs')).body.order_id as string
        const hold = await fetch(`${service.url}/pay/${held}/simulate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ outcome: 'hold' }),
        })
        expect(hold.status).toBe(200)
        const expected = (f: { body: string }): string =>
          f.body.includes('/capture') ? '409 invalid_transition' : 'ok'
        const program = [
          snippet('create-invoice.php'),
          snippet('shop.php'),
          ...fragments.map((f, n) => `function php_snippet_${n}(string $invoiceId): void\n{\n${f.body}\n}`),
          // in the guide's order. The capture-and-cancel one gets a held invoice: its capture applies (→ paid), so
          // its cancel is the 409 invalid_transition the guide says it then is (a wrong path would be a 404)
          ...fragments.map((f, n) =>
            f.body.includes('/capture')
              ? `try { php_snippet_${n}('${held}'); } catch (InvoiceServiceException $e) { echo "snippet ${n}: {$e->status} {$e->errorCode}\\n"; }`
              : `php_snippet_${n}('${pending}'); echo "snippet ${n}: ok\\n";`,
          ),
        ].join('\n')
        writeFileSync(join(work, 'guide.php'), program)
        const lint = spawnSync('php', ['-l', 'guide.php'], { cwd: work, encoding: 'utf8' })
        expect(lint.status, lint.stdout + lint.stderr).toBe(0)
        const ran = spawnSync('php', ['guide.php'], {
          cwd: work,
          encoding: 'utf8',
          env: {
            PATH: process.env['PATH'] ?? '',
            INVOICE_SERVICE_URL: service.url,
            INVOICE_API_KEY: service.merchant.api_key,
            INVOICE_MERCHANT_ID: service.merchant.merchant_id,
          },
        })
        expect(ran.stderr + ran.stdout, program).toBe(
          fragments.map((f, n) => `snippet ${n}: ${expected(f)}\n`).join(''),
        )
        expect((await service.api('GET', `/api/v1/invoices/${held}`)).body.status).toBe('paid')
      })

      it('the PHP create-invoice snippet creates the invoice', async () => {
        const work = mkdtempSync(join(dir, 'php-'))
        writeFileSync(join(work, 'create-invoice.php'), snippet('create-invoice.php'))
        writeFileSync(
          join(work, 'run.php'),
          "<?php\nrequire __DIR__ . '/create-invoice.php';\necho json_encode($created);\n",
        )
        const { stdout } = await run('php', ['run.php'], {
          cwd: work,
          env: {
            PATH: process.env['PATH'] ?? '',
            INVOICE_SERVICE_URL: service.url,
            INVOICE_API_KEY: service.merchant.api_key,
          },
        })
        const created = JSON.parse(stdout) as { order_id: string; pay_url: string }
        expect(created.pay_url).toBe(`${service.url}/pay/${created.order_id}`)
        const read = await service.api('GET', `/api/v1/invoices/${created.order_id}`)
        expect(read.body).toMatchObject({ id: created.order_id, order_id: 'A-1001', amount: 100.5, currency: 'RUB' })
      })
    },
  )

  it('every curl line of README.md and docs/*.md answers 2xx', async () => {
    const commands: { file: string; command: string }[] = []
    for (const file of DOCS) {
      for (const { body } of fences(text(file))) {
        const lines = body.split('\n')
        for (let i = 0; i < lines.length; i++) {
          if (!/^\s*curl\s/.test(lines[i]!)) continue
          let command = lines[i]!.trim()
          while (command.endsWith('\\') && i + 1 < lines.length)
            command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`
          // a -d body may span lines inside its quotes
          while ((command.match(/'/g) ?? []).length % 2 === 1 && i + 1 < lines.length)
            command += ` ${lines[++i]!.trim()}`
          commands.push({ file, command })
        }
      }
    }
    expect(commands.length).toBeGreaterThan(5)

    // a delivery to redeliver: a paid invoice whose webhook goes to a closed port
    const closed = `http://127.0.0.1:${await freePort()}/hooks`
    const failing = await service.api('POST', '/api/v1/invoices', {
      order_id: 'docs-delivery',
      amount: '1.00',
      currency: 'RUB',
      callback_url: closed,
    })
    await fetch(`${service.url}/pay/${failing.body.order_id}/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'paid' }),
    })
    let deliveryId = ''
    await until('a delivery', async () => {
      deliveryId = (await service.api('GET', '/api/v1/webhooks/deliveries')).body.data[0]?.id ?? ''
      return deliveryId !== ''
    })

    const failures: string[] = []
    for (const [n, { file, command }] of commands.entries()) {
      // each command gets a fresh pending invoice as $INVOICE_ID
      const fresh = await service.api('POST', '/api/v1/invoices', {
        order_id: `docs-curl-${n}`,
        amount: '10.00',
        currency: 'RUB',
      })
      const invoiceId = fresh.body.order_id as string
      // a capture needs a hold, a refund a paid invoice
      const outcome = /\/capture\b/.test(command) ? 'hold' : /\/refunds\b/.test(command) ? 'paid' : undefined
      if (outcome !== undefined) {
        await fetch(`${service.url}/pay/${invoiceId}/simulate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ outcome }),
        })
      }
      // the literal placeholders of README.md: its example URL, key and merchant id
      const literal = command
        .replaceAll('http://localhost:8080', service.url)
        .replace(/mk_[^'"\s]*/g, service.merchant.api_key)
        .replace(/merchant_id=[^&'"\s]+/g, `merchant_id=${service.merchant.merchant_id}`)
        .replaceAll('https://shop.example/hooks/invoices', closed)
      const counted = literal.replace(/^curl /, `curl -o /dev/null -w '%{http_code}' --max-time 20 `)
      const result = spawnSync('sh', ['-c', counted], {
        encoding: 'utf8',
        env: {
          PATH: process.env['PATH'] ?? '',
          INVOICE_SERVICE_URL: service.url,
          INVOICE_API_KEY: service.merchant.api_key,
          INVOICE_MERCHANT_ID: service.merchant.merchant_id,
          INVOICE_WEBHOOK_SECRET: service.merchant.webhook_secret,
          INVOICE_ID: invoiceId,
          DELIVERY_ID: deliveryId,
        },
      })
      const status = result.stdout.trim()
      if (!/^2\d\d$/.test(status)) failures.push(`${file}: HTTP ${status} ${result.stderr} for\n  ${command}`)
    }
    expect(failures).toEqual([])
  }, 120_000)
})
