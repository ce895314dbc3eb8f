#!/usr/bin/env node
// `npm run soak`: the service on its default configuration under a steady, open-loop mixed load for a long while —
// creates, getInfo reads and sandbox payments whose invoice.paid webhooks go to a local receiver that verifies
// every signature — to find what short benchmarks cannot: errors that come with time, lost webhooks, memory growth.
//
//   SOAK_SECONDS=600     load duration              SOAK_RATE=1100      requests per second (open loop, fixed rate)
//   SOAK_WARMUP=60       seconds before the RSS baseline (default: 10 % of the duration, at most 60)
//   SOAK_DRAIN=30        seconds after the load for the last webhooks to arrive
//   SOAK_MIX=25,60,15    per cent of create, getInfo, pay
//   SOAK_CONNECTIONS=64  client connections         SOAK_DATABASE_URL=postgres://…  instead of a fresh SQLite file
//   SOAK_MAX_P99_MS=1000 the p99 latency (from the due time) a passing run stays under: it kept up with the rate
//   SOAK_NODE_ARGS="--single-threaded-gc"  Node flags for the service (docs/performance.md#reproduce)
//
// The rate is held like wrk2 does: request i is due at start + i / rate whatever the server does, and its latency
// is counted from when it was due, so a stall shows up in the percentiles instead of silently lowering the rate.
// The service runs pinned to core 0 and this generator (with the receiver) to core 1 when taskset is available.
// Pass: no request failed, the service kept up (p99 under SOAK_MAX_P99_MS), every paid invoice's webhook arrived,
// and the RSS after the warm-up stayed within ±20 %. Each 5 s sample also records the service's CPU, the whole
// machine's and the other processes' share of it: on a shared machine, read a bad run against those first.
// Writes bench/results/soak-<time>.json; exits 1 when the run did not pass. Needs a built dist/ (npm run build).
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Webhook } from 'standardwebhooks'
import { Pool } from 'undici'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const num = (name, dflt) => {
  const v = process.env[name]
  if (v === undefined || v === '') return dflt
  const n = Number(v)
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`soak: ${name} must be a positive number, got ${JSON.stringify(v)}`)
    process.exit(2)
  }
  return n
}
const SECONDS = num('SOAK_SECONDS', 600)
const RATE = num('SOAK_RATE', 1100)
const WARMUP = num('SOAK_WARMUP', Math.min(60, Math.max(5, Math.round(SECONDS / 10))))
const DRAIN = num('SOAK_DRAIN', 30)
const CONNECTIONS = num('SOAK_CONNECTIONS', 64)
const MAX_P99_MS = num('SOAK_MAX_P99_MS', 1000)
const DATABASE_URL = process.env.SOAK_DATABASE_URL
const MIX = (process.env.SOAK_MIX ?? '25,60,15').split(',').map(Number)
if (MIX.length !== 3 || MIX.some((n) => !Number.isFinite(n) || n < 0) || MIX[0] === 0) {
  console.error('soak: SOAK_MIX is create,getInfo,pay in per cent, e.g. 25,60,15 (create > 0)')
  process.exit(2)
}
const SAMPLE_MS = 5000
// Requests wait for a free connection in the client's queue (their latency counts from when they were due); past
// this many waiting the service is hopelessly overloaded and the run stops as failed rather than eat the memory.
const MAX_IN_FLIGHT = 200_000

// Pin: re-run this script on core 1; the service goes to core 0.
const hasTaskset = spawnSync('taskset', ['-V']).status === 0 && cpus().length >= 2
if (hasTaskset && process.env.SOAK_PINNED !== '1') {
  const r = spawnSync('taskset', ['-c', '1', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, SOAK_PINNED: '1' },
  })
  process.exit(r.status ?? 1)
}

const work = mkdtempSync(join(tmpdir(), 'invoice-soak-'))
const dbUrl = DATABASE_URL ?? `sqlite:${join(work, 'soak.db')}`
const serviceEnv = {
  ...process.env,
  DATABASE_URL: dbUrl,
  LOG_LEVEL: 'info',
  SQLITE_SYNCHRONOUS: 'full',
  NODE_ENV: 'production',
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  CALLBACK_ALLOW_HTTP: 'true',
}
const bin = join(ROOT, 'bin', 'invoice-service.js')
const merchant = JSON.parse(
  execFileSync(process.execPath, [bin, 'merchant', 'create', '--name', 'Soak', '--json'], {
    env: serviceEnv,
  }).toString(),
)

// State: invoices to read, invoices waiting to be paid, and when each payment was acknowledged.
const ids = []
const unpaid = []
const paidAtByInvoice = new Map()
const paidOk = new Set()
let orderSeq = 0

// The merchant's webhook endpoint: verifies every signature, counts invoice.paid per invoice.
const verifier = new Webhook(merchant.webhook_secret)
const hooks = {
  received: 0,
  badSignature: 0,
  paidInvoices: new Set(),
  duplicates: 0,
  eventIds: new Set(),
  firstLagMs: [],
}
const receiver = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    hooks.received += 1
    const body = Buffer.concat(chunks).toString('utf8')
    let event
    try {
      event = verifier.verify(body, req.headers)
    } catch {
      hooks.badSignature += 1
      res.writeHead(401).end()
      return
    }
    const id = req.headers['webhook-id']
    if (hooks.eventIds.has(id)) hooks.duplicates += 1
    hooks.eventIds.add(id)
    if (event.type === 'invoice.paid') {
      hooks.paidInvoices.add(event.data.id)
      const paidAt = paidAtByInvoice.get(event.data.id)
      if (paidAt !== undefined) hooks.firstLagMs.push(performance.now() - paidAt)
    }
    res.writeHead(204).end()
  })
})
await new Promise((r) => receiver.listen(0, '127.0.0.1', r))
const callbackUrl = `http://127.0.0.1:${receiver.address().port}/hooks`

const PORT = Number(process.env.SOAK_PORT ?? (await freePort()))
const logFile = join(work, 'service.log')
const nodeArgs = (process.env.SOAK_NODE_ARGS ?? '').split(/\s+/).filter((a) => a !== '')
const svcArgs = [...nodeArgs, bin, 'serve']
const service = hasTaskset
  ? spawn('taskset', ['-c', '0', process.execPath, ...svcArgs], {
      env: { ...serviceEnv, PORT: String(PORT) },
      stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
    })
  : spawn(process.execPath, svcArgs, {
      env: { ...serviceEnv, PORT: String(PORT) },
      stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
    })
let serviceExit
service.on('exit', (code, signal) => (serviceExit = { code, signal }))
const base = `http://127.0.0.1:${PORT}`
await waitFor(`${base}/readyz`)

const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1, keepAliveTimeout: 60_000 })
const apiHeaders = { 'content-type': 'application/json', 'x-api-key': merchant.api_key }

async function send(method, path, headers, body) {
  const res = await pool.request({ method, path, headers, body })
  const text = await res.body.text()
  return { status: res.statusCode, text }
}
async function create() {
  orderSeq += 1
  const r = await send(
    'POST',
    '/api/v1/invoices',
    apiHeaders,
    JSON.stringify({ order_id: `soak-${orderSeq}`, amount: '100.00', currency: 'RUB', callback_url: callbackUrl }),
  )
  if (r.status === 201) {
    const id = JSON.parse(r.text).order_id
    ids.push(id)
    unpaid.push(id)
  }
  return r
}
async function getInfo() {
  const id = ids[Math.floor(Math.random() * ids.length)]
  return send('GET', `/api/invoice/getInfo?merchant_id=${merchant.merchant_id}&invoice_id=${id}`, {
    'x-api-key': merchant.api_key,
  })
}
async function pay() {
  const id = unpaid.shift()
  const r = await send('POST', `/pay/${id}/simulate`, { 'content-type': 'application/json' }, '{"outcome":"paid"}')
  if (r.status === 200) {
    paidOk.add(id)
    paidAtByInvoice.set(id, performance.now())
  }
  return r
}

// Seed invoices for the reads.
for (let i = 0; i < 500; i += 1) {
  const r = await create()
  if (r.status !== 201) throw new Error(`seeding failed: ${r.status} ${r.text}`)
}

const OPS = { create, getInfo, pay }
const stats = {}
for (const op of Object.keys(OPS)) stats[op] = { count: 0, errors: 0, latencies: [] }
const errorSamples = []
const intervals = []
const rss = []
let inFlight = 0
let maxInFlight = 0
let maxLagMs = 0
let overloaded = false
let interval = { count: 0, errors: 0, latencies: [] }

function pickOp() {
  const x = Math.random() * (MIX[0] + MIX[1] + MIX[2])
  if (x < MIX[0]) return 'create'
  if (x < MIX[0] + MIX[1]) return 'getInfo'
  return unpaid.length > 0 ? 'pay' : 'getInfo'
}

function fire(op, dueAt) {
  const s = stats[op]
  s.count += 1
  interval.count += 1
  if (inFlight >= MAX_IN_FLIGHT) {
    overloaded = true
    return
  }
  inFlight += 1
  maxInFlight = Math.max(maxInFlight, inFlight)
  OPS[op]()
    .then(
      (r) => {
        const ms = performance.now() - dueAt
        s.latencies.push(ms)
        interval.latencies.push(ms)
        if (r.status < 200 || r.status >= 300) {
          s.errors += 1
          interval.errors += 1
          if (errorSamples.length < 20) errorSamples.push(`${op}: ${r.status} ${r.text.slice(0, 200)}`)
        }
      },
      (err) => {
        s.errors += 1
        interval.errors += 1
        if (errorSamples.length < 20) errorSamples.push(`${op}: ${err.code ?? err.message}`)
      },
    )
    .finally(() => (inFlight -= 1))
}

/** CPU seconds the process has used (user + system), from /proc. */
function readProcCpu(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined
  }
}
/** The machine's busy and total CPU seconds, from /proc/stat. */
function readMachineCpu() {
  const [, ...v] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number)
  const total = v.reduce((a, b) => a + b, 0) / 100
  const idle = (v[3] + v[4]) / 100
  return { busy: total - idle, total }
}
/** The service's own event-loop lag (prom-client's default metrics), in ms; undefined when not readable. */
async function readLoopLagMs() {
  try {
    const text = await (await fetch(`${base}/metrics`)).text()
    const max = /^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1]
    return max === undefined ? undefined : Math.round(Number(max) * 1000)
  } catch {
    return undefined
  }
}

function readRss(pid) {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? undefined : Number(kb) * 1024
  } catch {
    return undefined
  }
}

console.log(
  `soak: ${RATE} req/s for ${SECONDS} s (mix create/getInfo/pay ${MIX.join('/')} %), warm-up ${WARMUP} s, drain ${DRAIN} s, ${CONNECTIONS} connections`,
)
console.log(
  `soak: service ${DATABASE_URL ? 'on PostgreSQL' : 'on SQLite (synchronous=full)'}${nodeArgs.length > 0 ? ` started with node ${nodeArgs.join(' ')}` : ''}, ${hasTaskset ? 'pinned to core 0, generator on core 1' : 'not pinned'}; log ${logFile}`,
)
const start = performance.now()
const end = start + SECONDS * 1000
let sent = 0
let lastCpu = { service: readProcCpu(service.pid), machine: readMachineCpu(), self: process.cpuUsage() }
const sampler = setInterval(async () => {
  const t = (performance.now() - start) / 1000
  const bytes = readRss(service.pid)
  const cpu = { service: readProcCpu(service.pid), machine: readMachineCpu(), self: process.cpuUsage() }
  const selfCpuS = (cpu.self.user + cpu.self.system - lastCpu.self.user - lastCpu.self.system) / 1e6
  const machineBusyS = cpu.machine.busy - lastCpu.machine.busy
  const serviceCpuPct =
    cpu.service === undefined || lastCpu.service === undefined
      ? null
      : Math.round(((cpu.service - lastCpu.service) / (SAMPLE_MS / 1000)) * 100)
  const machineBusyPct = Math.round(
    ((cpu.machine.busy - lastCpu.machine.busy) / Math.max(0.001, cpu.machine.total - lastCpu.machine.total)) * 100,
  )
  lastCpu = cpu
  if (bytes !== undefined) rss.push({ t: Math.round(t), rss_mb: Math.round((bytes / 1048576) * 10) / 10 })
  const lat = interval.latencies.sort((a, b) => a - b)
  const row = {
    t: Math.round(t),
    rps: Math.round(interval.count / (SAMPLE_MS / 1000)),
    errors: interval.errors,
    p50_ms: round(pct(lat, 50)),
    p99_ms: round(pct(lat, 99)),
    in_flight: inFlight,
    rss_mb: bytes === undefined ? null : Math.round(bytes / 1048576),
    webhooks: hooks.received,
    service_cpu_pct: serviceCpuPct, // of one core
    machine_busy_pct: machineBusyPct, // of all cores: this run plus whatever else the machine does
    generator_cpu_pct: Math.round((selfCpuS / (SAMPLE_MS / 1000)) * 100),
    // CPU used by neither the service nor this generator (other processes, the kernel), in per cent of one core
    other_cpu_pct:
      serviceCpuPct === null
        ? null
        : Math.max(0, Math.round(((machineBusyS - selfCpuS) / (SAMPLE_MS / 1000)) * 100 - serviceCpuPct)),
    loop_lag_max_ms: null,
  }
  intervals.push(row)
  interval = { count: 0, errors: 0, latencies: [] }
  row.loop_lag_max_ms = (await readLoopLagMs()) ?? null
  if (intervals.length % 2 === 0 || t < 30) {
    console.log(
      `  t=${String(row.t).padStart(4)}s  ${String(row.rps).padStart(5)} req/s  errors ${row.errors}  p50 ${row.p50_ms} ms  p99 ${row.p99_ms} ms  in flight ${row.in_flight}  rss ${row.rss_mb} MB  webhooks ${row.webhooks}  cpu: service ${row.service_cpu_pct} %, generator ${row.generator_cpu_pct} %, others ${row.other_cpu_pct} %  loop lag ${row.loop_lag_max_ms} ms`,
    )
  }
}, SAMPLE_MS)

// The open-loop generator: every tick sends what has come due since the last one.
await new Promise((resolve) => {
  const tick = () => {
    const now = performance.now()
    if (serviceExit !== undefined || overloaded) return resolve()
    const dueUntil = Math.min(now, end)
    for (;;) {
      const dueAt = start + (sent * 1000) / RATE
      if (dueAt > dueUntil) break
      maxLagMs = Math.max(maxLagMs, now - dueAt)
      sent += 1
      fire(pickOp(), dueAt)
    }
    if (now >= end) return resolve()
    setTimeout(tick, 1)
  }
  tick()
})
const loadEnded = performance.now()
while (inFlight > 0 && performance.now() - loadEnded < 30_000) await sleep(50)

// Drain: every payment acknowledged must have its invoice.paid webhook.
const drainUntil = performance.now() + DRAIN * 1000
const missing = () => [...paidOk].filter((id) => !hooks.paidInvoices.has(id))
while (missing().length > 0 && performance.now() < drainUntil) await sleep(200)
const drainedAfterMs = Math.round(performance.now() - loadEnded)
clearInterval(sampler)
const finalRss = readRss(service.pid)

service.kill('SIGTERM')
await new Promise((r) => (serviceExit !== undefined ? r() : service.on('exit', r)))
await pool.close()
receiver.close()

// RSS: a baseline right after the warm-up (median of the samples in the 30 s after it), then every later sample.
const afterWarmup = rss.filter((s) => s.t >= WARMUP)
const baselineWindow = afterWarmup.filter((s) => s.t < WARMUP + 30).map((s) => s.rss_mb)
const baseline = median(baselineWindow.length > 0 ? baselineWindow : afterWarmup.slice(0, 1).map((s) => s.rss_mb))
const rssValues = afterWarmup.map((s) => s.rss_mb)
const rssMin = Math.min(...rssValues)
const rssMax = Math.max(...rssValues)
const rssWithin = baseline !== undefined && rssMin >= baseline * 0.8 && rssMax <= baseline * 1.2
// The trend, apart from the garbage collector's sawtooth: the median of each minute after the warm-up.
const minuteMedians = []
for (let from = WARMUP; from < SECONDS; from += 60) {
  const m = median(afterWarmup.filter((x) => x.t >= from && x.t < from + 60).map((x) => x.rss_mb))
  if (m !== undefined) minuteMedians.push({ from_s: from, rss_mb: m })
}
const lastMinute = minuteMedians[minuteMedians.length - 1]?.rss_mb
const trendPct =
  baseline === undefined || lastMinute === undefined
    ? null
    : Math.round(((lastMinute - baseline) / baseline) * 1000) / 10

const all = Object.values(stats)
  .flatMap((s) => s.latencies)
  .sort((a, b) => a - b)
const latency = (arr) => {
  const a = arr.slice().sort((x, y) => x - y)
  return {
    p50_ms: round(pct(a, 50)),
    p90_ms: round(pct(a, 90)),
    p99_ms: round(pct(a, 99)),
    p999_ms: round(pct(a, 99.9)),
    max_ms: round(a[a.length - 1] ?? 0),
  }
}
const totalRequests = Object.values(stats).reduce((n, s) => n + s.count, 0)
const totalErrors = Object.values(stats).reduce((n, s) => n + s.errors, 0)
const lost = missing()
const lag = hooks.firstLagMs.sort((a, b) => a - b)
const result = {
  at: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, pinned: hasTaskset },
  database: DATABASE_URL ? 'postgres' : 'sqlite',
  config: {
    seconds: SECONDS,
    target_rps: RATE,
    mix_percent: { create: MIX[0], getInfo: MIX[1], pay: MIX[2] },
    warmup_s: WARMUP,
    drain_s: DRAIN,
    connections: CONNECTIONS,
  },
  requests: {
    total: totalRequests,
    achieved_rps: Math.round(totalRequests / SECONDS),
    errors: totalErrors,
    error_samples: errorSamples,
    by_op: Object.fromEntries(
      Object.entries(stats).map(([op, s]) => [op, { count: s.count, errors: s.errors, ...latency(s.latencies) }]),
    ),
    latency_from_due_time: { ...latency(all) },
    generator: { max_lag_ms: round(maxLagMs), max_in_flight: maxInFlight },
  },
  webhooks: {
    expected_paid: paidOk.size,
    delivered_paid: [...paidOk].filter((id) => hooks.paidInvoices.has(id)).length,
    lost: lost.length,
    lost_sample: lost.slice(0, 10),
    received_requests: hooks.received,
    duplicates: hooks.duplicates,
    bad_signatures: hooks.badSignature,
    all_delivered_after_load_ms: lost.length === 0 ? drainedAfterMs : null,
    payment_to_receipt: {
      p50_ms: round(pct(lag, 50)),
      p99_ms: round(pct(lag, 99)),
      max_ms: round(lag[lag.length - 1] ?? 0),
    },
  },
  rss: {
    baseline_mb: baseline,
    after_warmup_min_mb: rssMin,
    after_warmup_max_mb: rssMax,
    final_mb: finalRss === undefined ? null : Math.round((finalRss / 1048576) * 10) / 10,
    within_20_percent: rssWithin,
    minute_medians: minuteMedians,
    last_minute_median_mb: lastMinute ?? null,
    trend_percent: trendPct,
    samples: rss,
  },
  service_exit: serviceExit,
  intervals,
}
const others = intervals.map((i) => i.other_cpu_pct).filter((x) => x !== null)
result.machine_load = {
  other_cpu_pct_mean: others.length === 0 ? null : Math.round(others.reduce((a, b) => a + b, 0) / others.length),
  other_cpu_pct_max: others.length === 0 ? null : Math.max(...others),
}
result.node_args = nodeArgs
result.overloaded = overloaded
result.kept_up = result.requests.latency_from_due_time.p99_ms <= MAX_P99_MS
result.pass =
  !overloaded &&
  result.kept_up &&
  totalErrors === 0 &&
  lost.length === 0 &&
  hooks.badSignature === 0 &&
  rssWithin &&
  serviceExit?.code === 0

mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
const file = join(ROOT, 'bench', 'results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(file, JSON.stringify(result, null, 2))

const r = result.requests
console.log(
  `\nrequests: ${r.total.toLocaleString('en')} (${r.achieved_rps} req/s of ${RATE} targeted), errors: ${r.errors}`,
)
for (const [op, s] of Object.entries(r.by_op))
  console.log(
    `  ${op.padEnd(8)} ${String(s.count).padStart(9)}  p50 ${s.p50_ms} ms  p99 ${s.p99_ms} ms  p99.9 ${s.p999_ms} ms  max ${s.max_ms} ms  errors ${s.errors}`,
  )
console.log(
  `  all      p50 ${r.latency_from_due_time.p50_ms} ms  p90 ${r.latency_from_due_time.p90_ms} ms  p99 ${r.latency_from_due_time.p99_ms} ms  p99.9 ${r.latency_from_due_time.p999_ms} ms  (from the time each request was due)`,
)
const w = result.webhooks
console.log(
  `webhooks: ${w.delivered_paid} of ${w.expected_paid} invoice.paid delivered (lost ${w.lost}, duplicates ${w.duplicates}, bad signatures ${w.bad_signatures}); payment → receipt p50 ${w.payment_to_receipt.p50_ms} ms, p99 ${w.payment_to_receipt.p99_ms} ms`,
)
console.log(
  `rss: baseline ${baseline} MB after ${WARMUP} s; then ${rssMin}–${rssMax} MB (every sample ${rssWithin ? 'within' : 'NOT within'} ±20 %); last minute's median ${lastMinute} MB (${trendPct} % from the baseline); final ${result.rss.final_mb} MB`,
)
for (const e of errorSamples) console.log(`  error: ${e}`)
console.log(
  `machine: other processes used ${result.machine_load.other_cpu_pct_mean} % of a core on average (max ${result.machine_load.other_cpu_pct_max} %)`,
)
if (!result.kept_up)
  console.log(
    `did not keep up: p99 ${result.requests.latency_from_due_time.p99_ms} ms from the due time (limit ${MAX_P99_MS} ms)`,
  )
if (overloaded) console.log(`overloaded: more than ${MAX_IN_FLIGHT} requests waiting; the run was stopped`)
if (serviceExit?.code !== 0) console.log(`service exit: ${JSON.stringify(serviceExit)}`)
console.log(`\n${result.pass ? 'PASS' : 'FAIL'}; written: ${file}`)
if (result.pass) rmSync(work, { recursive: true, force: true })
else console.log(`kept for inspection: ${work} (the service log: ${logFile})`)
process.exit(result.pass ? 0 : 1)

function pct(sorted, p) {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}
function median(values) {
  if (values.length === 0) return undefined
  const s = values.slice().sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
function round(x) {
  return Math.round(x * 100) / 100
}
function freePort() {
  return new Promise((resolve) => {
    const srv = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}
function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms))
}
async function waitFor(url) {
  for (let i = 0; i < 200; i += 1) {
    try {
      await new Promise((resolve, reject) => http.get(url, (res) => (res.resume(), resolve())).on('error', reject))
      return
    } catch {
      await sleep(100)
    }
  }
  throw new Error(`not up: ${url}`)
}
