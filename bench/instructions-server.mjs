// Instructions per request of a server, counted by valgrind's callgrind (see bench/instructions.mjs for why): the
// server runs under callgrind, a client outside it sends LOW requests, then in a second run HIGH requests, each
// after the same warm-up, and (I(HIGH) − I(LOW)) / (HIGH − LOW) is printed. The client keeps CONCURRENCY requests
// in flight, so the server (slowed ~50× by callgrind) always has work queued and batches its writes as under load.
//
//   node bench/instructions-server.mjs <create|getinfo> <service|floor>
//   INSTR_LOW=1000 INSTR_HIGH=3000 INSTR_WARMUP=1500 INSTR_CONCURRENCY=16 INSTR_PORT=18090
//
// `service` is `invoice-service serve` on its default configuration (SQLite, synchronous=full, the bench's limits
// out of the way); `floor` is bench/floor-server.mjs, the same work without the framework. Needs valgrind and a
// built dist/ (npm run build).
import { spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, ROOT, startNodeOptions, createMerchant, serviceEnv, startService } from './lib.mjs'

const [kind, server] = process.argv.slice(2)
if (!['create', 'getinfo'].includes(kind) || !['service', 'floor'].includes(server)) {
  console.error('usage: node bench/instructions-server.mjs <create|getinfo> <service|floor>')
  process.exit(2)
}
const LOW = Number(process.env.INSTR_LOW ?? 1000)
const HIGH = Number(process.env.INSTR_HIGH ?? 3000)
const WARMUP = Number(process.env.INSTR_WARMUP ?? 1500)
const CONCURRENCY = Number(process.env.INSTR_CONCURRENCY ?? 16)
const PORT = Number(process.env.INSTR_PORT ?? 18090)
const SEED = 200

const work = mkdtempSync(join(tmpdir(), 'invoice-instr-'))
const env = serviceEnv(`sqlite:${join(work, 'bench.db')}`)
const merchant = createMerchant(env)
const floorMerchant = createMerchant(serviceEnv(`sqlite:${join(work, 'floor-create.db')}`))

// invoices for getInfo to read, made by the service (run natively) as the bench makes them
const seeding = await startService({ env, port: PORT, logFile: join(work, 'seed.log') })
const ids = []
for (let i = 0; i < SEED; i++) {
  const res = await fetch(`${seeding.base}/api/v1/invoices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': merchant.api_key },
    body: JSON.stringify({ order_id: `seed-${i}`, amount: '100.00', currency: 'RUB' }),
  })
  ids.push((await res.json()).order_id)
}
await seeding.stop()

let sent = 0
/** Sends `n` requests of the kind measured, CONCURRENCY at a time; resolves when all are answered (all 2xx). */
async function load(agent, n) {
  let next = 0
  const one = () =>
    new Promise((resolve, reject) => {
      const i = sent++
      const create = kind === 'create'
      const body = create ? JSON.stringify({ order_id: `i-${i}`, amount: '100.00', currency: 'RUB' }) : undefined
      const path = create
        ? '/api/v1/invoices'
        : `/api/invoice/getInfo?merchant_id=${merchant.merchant_id}&invoice_id=${ids[i % ids.length]}`
      const req = http.request(
        {
          agent,
          host: '127.0.0.1',
          port: PORT,
          method: create ? 'POST' : 'GET',
          path,
          headers: { 'x-api-key': merchant.api_key, ...(create ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          res.resume()
          res.on('end', () => (res.statusCode < 300 ? resolve() : reject(new Error(`${path}: ${res.statusCode}`))))
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        next++
        await one()
      }
    }),
  )
}

/** Resolves once `url` answers at all; a server under callgrind takes a minute or more to start. */
async function up(url, exited) {
  let gone = false
  exited.then(() => (gone = true))
  for (let waited = 0; waited < 600_000; waited += 250) {
    if (gone) throw new Error(`the server exited before answering ${url}`)
    const answered = await new Promise((resolve) =>
      http.get(url, (res) => (res.resume(), resolve(true))).on('error', () => resolve(false)),
    )
    if (answered) return
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`not up after 10 minutes: ${url}`)
}

/** Instructions callgrind counted in the server over its whole life, having answered WARMUP + `n` requests. */
async function count(n) {
  // each run on copies of the databases as seeding left them, so both start from the same state
  const dir = join(work, `run-${n}`)
  mkdirSync(dir)
  for (const db of ['bench.db', 'floor-create.db'])
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(join(work, db + suffix))) copyFileSync(join(work, db + suffix), join(dir, db + suffix))
  const serverArgs =
    server === 'service'
      ? [...startNodeOptions(), BIN, 'serve']
      : [
          join(ROOT, 'bench', 'floor-server.mjs'),
          String(PORT),
          join(dir, 'bench.db'),
          join(dir, 'floor.log'),
          join(dir, 'floor-create.db'),
        ]
  const report = join(dir, 'callgrind.txt')
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      `--log-file=${report}`,
      process.execPath,
      '--predictable',
      '--single-threaded',
      ...serverArgs,
    ],
    {
      env: {
        ...env,
        DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
        PORT: String(PORT),
        FLOOR_API_KEY: merchant.api_key,
        FLOOR_CREATE_MERCHANT: floorMerchant.merchant_id,
        FLOOR_PUBLIC_URL: env.PUBLIC_URL,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  const exited = new Promise((resolve) => child.on('exit', resolve))
  try {
    await up(`http://127.0.0.1:${PORT}/`, exited)
  } catch (err) {
    child.kill('SIGKILL')
    throw err
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  await load(agent, WARMUP)
  await load(agent, n)
  agent.destroy()
  child.kill('SIGTERM')
  await exited
  const collected = /Collected : (\d+)/.exec(readFileSync(report, 'utf8'))
  if (collected === null) throw new Error(`no callgrind total in ${report}`)
  return Number(collected[1])
}

try {
  const low = await count(LOW)
  const high = await count(HIGH)
  console.log(
    JSON.stringify({
      kind,
      server,
      concurrency: CONCURRENCY,
      low: { n: LOW, instructions: low },
      high: { n: HIGH, instructions: high },
      per_request: Math.round((high - low) / (HIGH - LOW)),
    }),
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
