#!/usr/bin/env node
// `npm run bench:scale`: does getInfo stay fast as the invoice table grows? Seeds one SQLite database in steps
// (10,000 invoices, then 1,000,000 by default) and measures getInfo with wrk at each size, on invoices picked at
// random across the whole table (the worst case for caches), with the service on its default configuration.
//
//   SCALE_SIZES=10000,1000000   table sizes to measure at       BENCH_DURATION=10   seconds per measurement
//   BENCH_CONNECTIONS=50        wrk connections                  SCALE_SAMPLE=5000   invoices getInfo picks from
//
// Seeding writes rows straight into the database (the API would take ~10 minutes for a million): copies of one
// invoice created through the API, each with its own time-ordered id spread over the past 90 days, order_id and
// URLs, settled as paid (70 %) or expired, so the sweeper has nothing to do. Writes bench/results/scale-<time>.json.
import { createRequire } from 'node:module'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  ROOT,
  createMerchant,
  invoiceRequestsLua,
  machineInfo,
  requireWrk,
  runWrk,
  serviceEnv,
  startService,
  templateInvoice,
  wrkScript,
} from './lib.mjs'

const require = createRequire(import.meta.url)
const Database = require('better-sqlite3')
const { createUuidV7 } = await import(join(ROOT, 'dist', 'adapters', 'system', 'uuid-v7.js'))

const SIZES = (process.env.SCALE_SIZES ?? '10000,1000000').split(',').map(Number)
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SAMPLE = Number(process.env.SCALE_SAMPLE ?? 5000)
const PORT = 18082
requireWrk()

const work = mkdtempSync(join(tmpdir(), 'invoice-scale-'))
const dbPath = join(work, 'scale.db')
const env = serviceEnv(`sqlite:${dbPath}`)
const merchant = createMerchant(env, 'Scale')

// One invoice through the API: the template every seeded row copies.
const templateId = await templateInvoice({
  env,
  port: PORT,
  logFile: join(work, 'service.log'),
  merchant,
  fields: { comment: 'Order from the scale bench' },
})
let service

const db = new Database(dbPath)
db.pragma('journal_mode = WAL')
db.pragma('synchronous = OFF') // seeding only; the service opens the file with its own settings
const template = db.prepare('select * from invoices where id = ?').get(templateId)
const columns = Object.keys(template)
const insert = db.prepare(
  `insert into invoices (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`,
)
const DAY = 86_400_000
const start = Date.now() - 90 * DAY
let seeded = db.prepare('select count(*) as n from invoices').get().n

function seedTo(total) {
  const step = (90 * DAY) / total
  let clock = start + seeded * step
  const newId = createUuidV7(() => Math.floor(clock))
  const batch = db.transaction((n) => {
    for (let i = 0; i < n; i += 1) {
      clock += step
      const id = newId()
      const created = Math.floor(clock)
      const paid = Math.random() < 0.7
      const payUrl = template.pay_url.replace(templateId, id)
      insert.run({
        ...template,
        id,
        order_id: `scale-${seeded + i}`,
        pay_url: payUrl,
        qr_data: template.qr_data.replace(templateId, id),
        status: paid ? 'paid' : 'expired',
        credited: paid ? template.amount : null,
        paid_at: paid ? created + 60_000 : null,
        created_at: created,
        updated_at: paid ? created + 60_000 : created + 3_600_000,
        expires_at: created + 3_600_000,
      })
    }
  })
  const t0 = performance.now()
  while (seeded < total) {
    const n = Math.min(100_000, total - seeded)
    batch(n)
    seeded += n
  }
  db.pragma('wal_checkpoint(TRUNCATE)')
  return (performance.now() - t0) / 1000
}

const results = []
for (const size of SIZES) {
  const seedSeconds = seedTo(size)
  const ids = db
    .prepare('select id from invoices order by random() limit ?')
    .all(SAMPLE)
    .map((r) => r.id)
  const idsFile = join(work, `ids-${size}.txt`)
  writeFileSync(idsFile, ids.join('\n'))
  service = await startService({ env, port: PORT, logFile: join(work, 'service.log'), core: 0 })
  const script = wrkScript(work, `${invoiceRequestsLua(idsFile, merchant)}\nrequest = getinfo`)
  runWrk({ url: service.base, script, connections: CONNECTIONS, duration: 2 }) // warm-up
  const r = runWrk({ url: service.base, script, connections: CONNECTIONS, duration: DURATION })
  await service.stop()
  results.push({ invoices: size, seed_s: Math.round(seedSeconds * 10) / 10, ...r })
  console.error(
    `${size.toLocaleString('en')} invoices: ${Math.round(r.rps)} req/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, ${r.errors} errors`,
  )
}
db.close()

const machine = machineInfo()
const first = results[0]
console.log(
  `\nmachine: ${machine.cpus} × ${machine.model}, Node ${machine.node}; getInfo on SQLite, ${CONNECTIONS} connections, ${DURATION} s each\n`,
)
console.log('| invoices | req/s | p50 ms | p99 ms | errors | p50 vs smallest |')
console.log('|---:|---:|---:|---:|---:|---:|')
for (const r of results) {
  r.p50_ratio = r.p50_ms / first.p50_ms
  console.log(
    `| ${r.invoices.toLocaleString('en')} | ${Math.round(r.rps).toLocaleString('en')} | ${r.p50_ms.toFixed(2)} | ${r.p99_ms.toFixed(2)} | ${r.errors} | ${r.p50_ratio.toFixed(2)}× |`,
  )
}
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
const file = join(ROOT, 'bench', 'results', `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(
  file,
  JSON.stringify(
    { at: new Date().toISOString(), machine, connections: CONNECTIONS, duration_s: DURATION, results },
    null,
    2,
  ),
)
console.log(`\nwritten: ${file}`)
rmSync(work, { recursive: true, force: true })
