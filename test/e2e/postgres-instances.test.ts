/**
 * Three instances of the real binary (`invoice-service serve`) over one PostgreSQL schema, as behind a load
 * balancer (docs/scaling.md#coordinated-through-the-database): they coordinate only through the database, so one order makes one invoice, a
 * payment through one instance reads the same through the others, every webhook is sent by one instance only,
 * and an expiry — raced by three sweepers — happens, with its event, once.
 * Needs TEST_DATABASE_URL; without it the file skips, except in CI, where it fails.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestSchema, IS_CI, MISSING_IN_CI, TEST_DATABASE_URL, type TestSchema } from '../helpers/postgres.js'
import { sleep, startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { freePort } from '../helpers/free-port.js'

const ROOT = join(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'invoice-service.js')

if (TEST_DATABASE_URL === undefined && IS_CI) {
  it('PostgreSQL in CI: TEST_DATABASE_URL is set', () => {
    throw new Error(MISSING_IN_CI)
  })
}

interface Instance {
  readonly base: string
  readonly child: ChildProcessWithoutNullStreams
  readonly exited: Promise<number | null>
  output: string
}

describe.skipIf(TEST_DATABASE_URL === undefined)('three instances over one PostgreSQL database', () => {
  let schema: TestSchema
  let rx: Receiver
  let merchant: { merchant_id: string; api_key: string; webhook_secret: string }
  const instances: Instance[] = []

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: process.env['PATH'] ?? '',
    DATABASE_URL: schema.url,
    DATABASE_POOL_SIZE: '5',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    CALLBACK_ALLOW_HTTP: 'true',
    INVOICE_MIN_LIFETIME: '1',
    ...extra,
  })

  async function startInstance(): Promise<Instance> {
    const port = await freePort()
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: env({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }),
    })
    const inst: Instance = {
      base: `http://127.0.0.1:${port}`,
      child,
      exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
      output: '',
    }
    child.stdout.on('data', (d: Buffer) => (inst.output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (inst.output += d.toString()))
    return inst
  }

  async function waitReady(inst: Instance): Promise<void> {
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        if ((await fetch(`${inst.base}/readyz`)).status === 200) return
      } catch {
        // not listening yet
      }
      if (inst.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`instance ${inst.base} did not get ready:\n${inst.output}`)
      await sleep(50)
    }
  }

  const create = (inst: Instance, body: Record<string, unknown>) =>
    fetch(`${inst.base}/api/v1/invoices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': merchant.api_key },
      body: JSON.stringify({ amount: '10.00', currency: 'RUB', ...body }),
    })
  const pay = (inst: Instance, id: string) =>
    fetch(`${inst.base}/pay/${id}/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"outcome":"paid"}',
    })
  const info = async (inst: Instance, id: string) => {
    const res = await fetch(`${inst.base}/api/invoice/getInfo?merchant_id=${merchant.merchant_id}&invoice_id=${id}`, {
      headers: { 'x-api-key': merchant.api_key },
    })
    expect(res.status).toBe(200)
    return (await res.json()) as { id: string; status: string; order_id: string }
  }

  beforeAll(async () => {
    schema = await createTestSchema()
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [BIN, 'merchant', 'create', '--name', 'Scale-out', '--json'],
      { env: env() },
    )
    merchant = JSON.parse(stdout) as typeof merchant
    rx = await startReceiver({ secrets: [merchant.webhook_secret] })
    // all three start at once: their migrations race too (an advisory lock serialises them)
    instances.push(...(await Promise.all([startInstance(), startInstance(), startInstance()])))
    await Promise.all(instances.map(waitReady))
  })

  afterAll(async () => {
    for (const inst of instances) inst.child.kill('SIGTERM')
    const codes = await Promise.all(instances.map((i) => i.exited))
    await rx?.close()
    await schema?.drop()
    expect(codes).toEqual(instances.map(() => 0))
  })

  it('when 30 creates of one order_id race across the instances, then exactly one is 201 and all others 200 with the same invoice', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, n) => {
        const res = await create(instances[n % 3]!, { order_id: 'RACE-1' })
        return { status: res.status, body: (await res.json()) as { order_id: string; is_new: boolean } }
      }),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(29)
    expect(new Set(answers.map((a) => a.body.order_id)).size).toBe(1)
    expect(answers.filter((a) => a.body.is_new)).toHaveLength(1)
  })

  it('when an invoice is paid through instance 1, then instances 2 and 3 read it paid', async () => {
    const created = await create(instances[1]!, { order_id: 'PAY-1' })
    expect(created.status).toBe(201)
    const { order_id: id } = (await created.json()) as { order_id: string }
    expect((await pay(instances[0]!, id)).status).toBe(200)
    expect((await info(instances[1]!, id)).status).toBe('paid')
    expect((await info(instances[2]!, id)).status).toBe('paid')
  })

  it('when 20 invoices with a callback_url are paid through different instances, then the receiver gets each event exactly once', async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, async (_, n) => {
        const res = await create(instances[n % 3]!, { order_id: `HOOK-${n}`, callback_url: rx.url })
        expect(res.status).toBe(201)
        return ((await res.json()) as { order_id: string }).order_id
      }),
    )
    const paidResponses = await Promise.all(ids.map((id, n) => pay(instances[(n + 1) % 3]!, id)))
    expect(paidResponses.map((r) => r.status)).toEqual(ids.map(() => 200))
    const isOurs = (h: { json: { type: string; data: Record<string, unknown> } }) =>
      h.json.type === 'invoice.paid' && ids.includes(h.json.data['id'] as string)
    await rx.waitFor(20, { where: isOurs, timeoutMs: 15_000 })
    await sleep(2500) // time for a duplicate from another instance (the fallback poll is 1 s) to show up
    const ours = rx.received.filter(isOurs)
    expect(ours).toHaveLength(20)
    expect(ours.every((h) => h.verifiedWith.length === 1)).toBe(true)
    expect(new Set(ours.map((h) => h.headers['webhook-id'])).size).toBe(20)
    expect(new Set(ours.map((h) => h.json.data['id'])).size).toBe(20)
    // and nothing anywhere arrived twice
    const all = rx.received.map((h) => h.headers['webhook-id'])
    expect(new Set(all).size).toBe(all.length)
  })

  it('when an invoice with a lifetime of 1 s expires, then the three sweepers expire it once and the receiver gets one invoice.expired', async () => {
    const res = await create(instances[2]!, { order_id: 'EXPIRE-1', lifetime: 1, callback_url: rx.url })
    expect(res.status).toBe(201)
    const { order_id: id } = (await res.json()) as { order_id: string }
    const isOurs = (h: { json: { type: string; data: Record<string, unknown> } }) => h.json.data['id'] === id
    const [expired] = await rx.waitFor(1, { where: isOurs, timeoutMs: 15_000 })
    expect(expired!.json.type).toBe('invoice.expired')
    await sleep(2500) // several sweeps of all three instances
    expect(rx.received.filter(isOurs)).toHaveLength(1)
    for (const inst of instances) expect((await info(inst, id)).status).toBe('expired')
    const all = rx.received.map((h) => h.headers['webhook-id'])
    expect(new Set(all).size).toBe(all.length)
  })

  it('when an operator revokes a key, then all three instances refuse it within 5 s', async () => {
    const cli = async (...args: string[]) =>
      JSON.parse(
        (await promisify(execFile)(process.execPath, [BIN, ...args, '--json'], { env: env() })).stdout,
      ) as Record<string, string>
    const issued = await cli('key', 'create', '--merchant', merchant.merchant_id)
    const list = (inst: Instance) =>
      fetch(`${inst.base}/api/v1/invoices?limit=1`, { headers: { 'x-api-key': issued['api_key']! } })
    // every instance has the key in its cache (KEY_CACHE_TTL, 2 s by default)
    for (const inst of instances) expect((await list(inst)).status).toBe(200)
    await cli('key', 'revoke', issued['key_id']!)
    const revokedAt = Date.now()
    for (const inst of instances) {
      for (;;) {
        const res = await list(inst)
        if (res.status === 401) break
        expect(res.status).toBe(200)
        expect(Date.now() - revokedAt).toBeLessThan(5000)
        await sleep(100)
      }
    }
    expect(Date.now() - revokedAt).toBeLessThan(5000)
  })
})
