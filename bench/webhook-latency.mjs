#!/usr/bin/env node
// `node bench/webhook-latency.mjs`: how long a webhook takes from the transition that causes it to its arrival at
// the merchant's endpoint. The built service (bin/invoice-service.js → dist/) runs in its own process on a fresh
// SQLite file; this process is the merchant: it pays invoices through the sandbox (POST /pay/{id}/simulate) and
// runs a local receiver that verifies every webhook with the standardwebhooks package.
//
//   BENCH_WEBHOOKS=2000     paid transitions under load       BENCH_CONCURRENCY=50   payments in flight at once
//   BENCH_IDLE=100          payments one at a time first (no load: the doorbell, not the poll, must send them)
//   BENCH_RATE=300          then BENCH_WEBHOOKS payments at this steady rate per second (open loop), below saturation
//   BENCH_DATABASE_URL=postgres://…  run the service on PostgreSQL instead
//   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"  extra node flags for the service (profiling)
//
// Two clocks per webhook, both in this process: from sending the payment (includes its transaction) and from its
// answer (the commit is already done then: a lower bound of commit-to-receipt). Writes bench/results/webhook-latency-<time>.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { ROOT, createMerchant, inParallel, machineInfo, serviceEnv as benchEnv, startService } from './lib.mjs'

const TOTAL = Number(process.env.BENCH_WEBHOOKS ?? 2000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50)
const IDLE = Number(process.env.BENCH_IDLE ?? 100)
const RATE = Number(process.env.BENCH_RATE ?? 300)
const DATABASE_URL = process.env.BENCH_DATABASE_URL
const PORT = 18090
const work = mkdtempSync(join(tmpdir(), 'webhook-bench-'))
const now = () => performance.timeOrigin + performance.now()

const serviceEnv = benchEnv(DATABASE_URL ?? `sqlite:${join(work, 'bench.db')}`, {
  SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? 'full',
  CALLBACK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true', // the receiver is on 127.0.0.1
})
const merchant = createMerchant(serviceEnv, 'Webhook bench')
const verifier = new Webhook(merchant.webhook_secret)

// The merchant's endpoint.
const arrivals = new Map() // invoice id → arrival time
let badSignatures = 0
let onArrival = () => {}
const receiver = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const at = now()
    const body = Buffer.concat(chunks).toString('utf8')
    try {
      const hook = verifier.verify(body, req.headers)
      if (hook.type === 'invoice.paid' && !arrivals.has(hook.data.id)) arrivals.set(hook.data.id, at)
    } catch {
      badSignatures += 1
    }
    res.writeHead(204).end()
    onArrival()
  })
})
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const callbackUrl = `http://127.0.0.1:${receiver.address().port}/hooks`

const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
const service = await startService({ env: serviceEnv, port: PORT, logFile: join(work, 'service.log'), nodeArgs })
const { base } = service

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY + 8 })
const post = (path, body, headers = {}) =>
  new Promise((resolve, reject) => {
    const data = JSON.stringify(body)
    const req = http.request(
      `${base}${path}`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers },
      },
      (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }))
      },
    )
    req.on('error', reject)
    req.end(data)
  })

async function createInvoices(n, prefix) {
  const ids = []
  await inParallel(n, 32, async (k) => {
    const res = await post(
      '/api/v1/invoices',
      { order_id: `${prefix}-${k}`, amount: '100.00', currency: 'RUB', callback_url: callbackUrl },
      { 'x-api-key': merchant.api_key },
    )
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.body}`)
    ids.push(JSON.parse(res.body).order_id)
  })
  return ids
}

const sent = new Map() // id → { start, answered }
async function pay(id) {
  const start = now()
  const res = await post(`/pay/${id}/simulate`, { outcome: 'paid' })
  if (res.status !== 200) throw new Error(`pay: ${res.status} ${res.body}`)
  sent.set(id, { start, answered: now() })
}

function arrived(ids, timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (ids.every((id) => arrivals.has(id))) {
        clearTimeout(timer)
        onArrival = () => {}
        resolve()
      }
    }
    const timer = setTimeout(
      () => reject(new Error(`${ids.filter((id) => !arrivals.has(id)).length} webhooks missing after ${timeoutMs} ms`)),
      timeoutMs,
    )
    onArrival = check
    check()
  })
}

function stats(ids) {
  const fromRequest = ids.map((id) => arrivals.get(id) - sent.get(id).start).sort((a, b) => a - b)
  const fromAnswer = ids.map((id) => arrivals.get(id) - sent.get(id).answered).sort((a, b) => a - b)
  const q = (xs, p) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]
  const round = (x) => Math.round(x * 100) / 100
  return {
    n: ids.length,
    from_request_ms: {
      p50: round(q(fromRequest, 50)),
      p90: round(q(fromRequest, 90)),
      p99: round(q(fromRequest, 99)),
      max: round(fromRequest.at(-1)),
    },
    from_answer_ms: {
      p50: round(q(fromAnswer, 50)),
      p90: round(q(fromAnswer, 90)),
      p99: round(q(fromAnswer, 99)),
      max: round(fromAnswer.at(-1)),
    },
  }
}

// 1. No load: one payment at a time, each waiting for its webhook.
const idleIds = await createInvoices(IDLE, 'idle')
for (const id of idleIds) {
  await pay(id)
  await arrived([id], 5000)
}
const idle = stats(idleIds)

// 2. A steady rate: TOTAL payments at RATE per second, each sent on time whatever the others do (open loop).
const paceIds = await createInvoices(TOTAL, 'pace')
const paceStart = now()
await Promise.all(
  paceIds.map(async (id, k) => {
    const wait = paceStart + (k * 1000) / RATE - now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    await pay(id)
  }),
)
await arrived(paceIds, 120_000)
const paced = { ...stats(paceIds), rate_per_s: RATE }

// 3. A burst: TOTAL payments, CONCURRENCY at a time, as fast as the service takes them.
const loadIds = await createInvoices(TOTAL, 'load')
const loadStart = now()
let next = 0
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < loadIds.length) await pay(loadIds[next++])
  }),
)
const paidIn = now() - loadStart
await arrived(loadIds, 120_000)
const deliveredIn = Math.max(...loadIds.map((id) => arrivals.get(id))) - loadStart
const load = {
  ...stats(loadIds),
  payments_per_s: Math.round(TOTAL / (paidIn / 1000)),
  webhooks_per_s: Math.round(TOTAL / (deliveredIn / 1000)),
}

await service.stop()
receiver.close()
agent.destroy()

const machine = machineInfo()
const database = DATABASE_URL ? 'postgres' : `sqlite (synchronous=${serviceEnv.SQLITE_SYNCHRONOUS})`
console.log(`\nmachine: ${machine.cpus} × ${machine.model}, Node ${machine.node}; database: ${database}`)
console.log(
  'webhook latency, invoice.paid: payment sent → webhook received (and: payment answered → webhook received)\n',
)
console.log('| phase | webhooks | p50 ms | p90 ms | p99 ms | max ms | p50 / p99 ms from the answer |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
const row = (name, s) =>
  console.log(
    `| ${name} | ${s.n} | ${s.from_request_ms.p50} | ${s.from_request_ms.p90} | ${s.from_request_ms.p99} | ${s.from_request_ms.max} | ${s.from_answer_ms.p50} / ${s.from_answer_ms.p99} |`,
  )
row('one at a time', idle)
row(`steady ${RATE}/s`, paced)
row(`${CONCURRENCY} concurrent payments`, load)
console.log(
  `\nunder load: ${load.payments_per_s} payments/s, ${load.webhooks_per_s} webhooks/s delivered; bad signatures: ${badSignatures}`,
)
if (badSignatures > 0) process.exitCode = 1

mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
const file = join(ROOT, 'bench', 'results', `webhook-latency-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(
  file,
  JSON.stringify(
    {
      at: new Date().toISOString(),
      machine,
      database,
      concurrency: CONCURRENCY,
      idle,
      paced,
      load,
      bad_signatures: badSignatures,
    },
    null,
    2,
  ),
)
console.log(`written: ${file}`)
rmSync(work, { recursive: true, force: true })
