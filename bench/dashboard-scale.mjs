#!/usr/bin/env node
// `npm run bench:dashboard`: do the dashboard's pages stay fast with 1,000,000 invoices? Seeds one merchant's
// invoices over the past 120 days straight into a SQLite file (or PostgreSQL) (every status, some refunds and webhook deliveries),
// fills the dashboard's daily totals as migration 009 does, starts the real service (`invoice-service serve`), signs a
// user in through the pages, and requests each page of PAGES in turn. The server time of each request is the access
// log's `ms` (the time from the request's arrival to its answer); prints p50/p95/max per page, writes
// bench/results/dashboard-<time>.json and keeps the run in bench/history/dashboard.json. Target: < 50 ms each.
//
//   DASH_INVOICES=1000000   invoices to seed          DASH_REQUESTS=20   measured requests per page (after 3 warm-ups)
//   DASH_PAGES=/a,/b        other pages than DEFAULT_PAGES
//   BENCH_DATABASE_URL=postgres://…   seed and serve from PostgreSQL instead (a schema of its own, dropped after)
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, ROOT, createMerchant, machineInfo, serviceEnv, startService, templateInvoice } from './lib.mjs'

/**
 * Every dashboard page, as paths under the service: {invoice}, {order} and {merchant} name a seeded invoice (from the
 * middle of the table), its order_id and the merchant; {from} and {to} a 30-day range. The console's pages are asked
 * by an operator, the others by the merchant's owner. The CSV export is not a page (it streams the filtered set).
 */
const DEFAULT_PAGES = [
  '/dashboard',
  '/dashboard?days=7',
  '/dashboard?days=90',
  '/dashboard?lang=ru',
  '/dashboard/invoices',
  '/dashboard/invoices?status=paid',
  '/dashboard/invoices?currency=USD&status=failed',
  '/dashboard/invoices?status=hold&service=sbp',
  '/dashboard/invoices?created_from={from}&created_to={to}',
  '/dashboard/invoices?q={order}',
  '/dashboard/invoices/{invoice}',
  '/dashboard/webhooks',
  '/dashboard/api-keys',
  '/dashboard/team',
  '/dashboard/settings',
  '/dashboard/console',
  '/dashboard/console/merchants',
  '/dashboard/console/merchants/{merchant}',
  '/dashboard/console/invoices?q={order}',
  '/dashboard/console/invoices/{invoice}',
  '/dashboard/console/health',
]
const PAGES = process.env.DASH_PAGES?.split(',') ?? DEFAULT_PAGES

const require = createRequire(import.meta.url)
const Database = require('better-sqlite3')
const { Kysely, PostgresDialect, SqliteDialect } = require('kysely')
const { createUuidV7 } = await import(join(ROOT, 'dist', 'adapters', 'system', 'uuid-v7.js'))
const { rebuildDailyTotals } = await import(
  join(ROOT, 'dist', 'adapters', 'db', 'repositories', 'daily-totals-repo.js')
)
const { REFUND_COLUMNS } = await import(join(ROOT, 'dist', 'adapters', 'db', 'repositories', 'refund-repo.js'))
const { EVENT_COLUMNS } = await import(join(ROOT, 'dist', 'adapters', 'db', 'schema.js'))

const TOTAL = Number(process.env.DASH_INVOICES ?? 1_000_000)
const REQUESTS = Number(process.env.DASH_REQUESTS ?? 20)
const WARMUP = 3
const DAYS = 120
const PORT = 18083
const DAY = 86_400_000
const HOUR = 3_600_000
const EMAIL = 'owner@dashboard-bench.example'
const PASSWORD = 'a long bench passphrase'
const ADMIN_EMAIL = 'ops@dashboard-bench.example'

const work = mkdtempSync(join(tmpdir(), 'invoice-dashboard-'))
const logFile = join(work, 'service.log')
// PostgreSQL (BENCH_DATABASE_URL): a schema of its own, dropped at the end; else a fresh SQLite file
const PG_URL = process.env.BENCH_DATABASE_URL
const pgSchema = `dashboard_bench_${Date.now()}`
let dbUrl = `sqlite:${join(work, 'dashboard.db')}`
if (PG_URL !== undefined) {
  await pgQuery(PG_URL, `create schema ${pgSchema}`)
  const u = new URL(PG_URL)
  u.searchParams.set('options', `-c search_path=${pgSchema}`)
  dbUrl = u.toString()
}
const env = serviceEnv(dbUrl, { PUBLIC_URL: `http://127.0.0.1:${PORT}` })
const merchant = createMerchant(env, 'Dashboard Bench')

async function pgQuery(url, text, values) {
  const pg = require('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end()
  }
}

// One invoice through the API: the template every seeded row copies.
const templateId = await templateInvoice({
  env,
  port: PORT,
  logFile,
  merchant,
  fields: { callback_url: 'https://shop.example/hook' },
})
let service

const DELIVERY_COLUMNS = [
  'id',
  'event_id',
  'invoice_id',
  'merchant_id',
  'url',
  'type',
  'payload',
  'status',
  'attempt_count',
  'next_attempt_at',
  'lease_until',
  'created_at',
  'updated_at',
]

/**
 * Where the rows go. SQLite: prepared statements in one transaction per batch, synchronous off (the service opens
 * the file its own way). PostgreSQL: multi-row INSERTs of 1,000 rows.
 */
async function openWriter() {
  if (PG_URL === undefined) {
    const db = new Database(join(work, 'dashboard.db'))
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = OFF')
    const template = db.prepare('select * from invoices where id = ?').get(templateId)
    db.exec('delete from deliveries; delete from events; delete from invoices')
    const prepared = new Map()
    const insert = (table, columns) =>
      prepared.get(table) ??
      prepared
        .set(
          table,
          db.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`),
        )
        .get(table)
    const write = db.transaction((tables) => {
      for (const [table, columns, rows] of tables) for (const row of rows) insert(table, columns).run(...row)
    })
    return {
      template,
      write: async (tables) => write(tables),
      kysely: () => new Kysely({ dialect: new SqliteDialect({ database: db }) }),
      async finish() {
        db.pragma('wal_checkpoint(TRUNCATE)')
        db.exec('analyze')
        db.close()
      },
    }
  }
  const pg = require('pg')
  const pool = new pg.Pool({ connectionString: dbUrl, max: 2 })
  const template = (await pool.query('select * from invoices where id = $1', [templateId])).rows[0]
  for (const k of Object.keys(template))
    if (typeof template[k] === 'string' && /^\d+$/.test(template[k])) template[k] = Number(template[k])
  await pool.query('delete from deliveries; delete from events; delete from invoices')
  return {
    template,
    async write(tables) {
      for (const [table, columns, rows] of tables) {
        for (let at = 0; at < rows.length; at += 1000) {
          const chunk = rows.slice(at, at + 1000)
          const values = chunk.flat()
          const tuples = chunk.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
          await pool.query(`insert into ${table} (${columns.join(', ')}) values ${tuples.join(', ')}`, values)
        }
      }
    },
    kysely: () => new Kysely({ dialect: new PostgresDialect({ pool }) }),
    async finish() {
      await pool.query('vacuum analyze')
      await pool.end()
    },
  }
}

const writer = await openWriter()
const template = writer.template
const columns = Object.keys(template)
const now = Date.now()
const start = now - DAYS * DAY
const step = (DAYS * DAY) / TOTAL
let clock = start
const newId = createUuidV7(() => Math.floor(clock))
let seeded = 0
/** The invoice in the middle of the table, for the pages that show one. */
let sample = { invoice: '', order: '' }
let refunds = 0
let deliveries = 0
// a deterministic spread of statuses (xorshift), so two runs seed the same table
let seed = 0x9e3779b9
const random = () => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) / 4_294_967_296
}
/** The next `n` invoices with their refunds, events and deliveries, as rows of values per table. */
function nextRows(n) {
  const invoiceRows = []
  const refundRows = []
  const eventRows = []
  const deliveryRows = []
  for (let i = 0; i < n; i += 1) {
    clock += step
    const createdAt = Math.floor(clock)
    const id = newId()
    const usd = random() < 0.2
    const currency = usd ? 'USD' : 'RUB'
    const amount = usd ? 500 + Math.floor(random() * 20_000) : 10_000 + Math.floor(random() * 900_000)
    const age = now - createdAt
    const r = random()
    // pending only within the last hour (still before expiry), holds only in the hold lifetime's last 6 days
    const status =
      age < 50 * 60_000 && r < 0.5
        ? 'pending'
        : r < 0.6
          ? 'paid'
          : r < 0.7
            ? 'failed'
            : r < 0.73 && age < 6 * DAY
              ? 'hold'
              : 'expired'
    const settled = createdAt + Math.floor(random() * 10 * 60_000)
    if (seeded + i === Math.floor(TOTAL / 2)) sample = { invoice: id, order: `dash-${seeded + i}` }
    const row = {
      ...template,
      id,
      order_id: `dash-${seeded + i}`,
      amount,
      currency,
      status,
      pay_url: template.pay_url.replace(templateId, id),
      qr_data: template.qr_data.replace(templateId, id),
      credited: status === 'paid' ? amount - Math.floor(amount / 100) : null,
      paid_at: status === 'paid' ? settled : null,
      held_at: status === 'hold' ? settled : null,
      created_at: createdAt,
      updated_at: status === 'pending' ? createdAt : status === 'expired' ? createdAt + HOUR : settled,
      expires_at: createdAt + HOUR,
    }
    invoiceRows.push(columns.map((c) => row[c]))
    if (status === 'paid' && random() < 0.02) {
      refunds += 1
      const at = settled + DAY
      const half = Math.floor(amount / 2)
      refundRows.push([
        newId(),
        id,
        merchant.merchant_id,
        'sandbox',
        half,
        currency,
        'succeeded',
        null,
        null,
        null,
        `bench-${id}`,
        'bench',
        0,
        null,
        at,
        at,
      ])
    }
    if (random() < 0.05) {
      deliveries += 1
      const eventId = newId()
      const type = status === 'pending' ? 'invoice.created' : `invoice.${status}`
      eventRows.push([eventId, id, merchant.merchant_id, type, settled])
      const failed = random() < 0.1
      deliveryRows.push([
        newId(),
        eventId,
        id,
        merchant.merchant_id,
        'https://shop.example/hook',
        type,
        '{}',
        failed ? 'failed' : 'succeeded',
        failed ? 8 : 1,
        null,
        null,
        settled,
        settled,
      ])
    }
  }
  return [
    ['invoices', columns, invoiceRows],
    ['refunds', REFUND_COLUMNS, refundRows],
    ['events', EVENT_COLUMNS, eventRows],
    ['deliveries', DELIVERY_COLUMNS, deliveryRows],
  ]
}
const t0 = performance.now()
while (seeded < TOTAL) {
  const n = Math.min(50_000, TOTAL - seeded)
  await writer.write(nextRows(n))
  seeded += n
}
await rebuildDailyTotals(writer.kysely(), new Date())
await writer.finish()
const seedSeconds = (performance.now() - t0) / 1000
console.error(
  `seeded ${TOTAL.toLocaleString('en')} invoices (${refunds} refunds, ${deliveries} deliveries) in ${seedSeconds.toFixed(1)} s`,
)

// A user of the merchant, signed in through the pages as a person would.
const invite = execFileSync(
  process.execPath,
  [BIN, 'user', 'invite', '--merchant', merchant.merchant_id, '--email', EMAIL],
  { env },
)
  .toString()
  .match(/https?:\/\/\S+\/dashboard\/invite\/\S+/)?.[0]
if (invite === undefined) throw new Error('user invite printed no link')
service = await startService({ env, port: PORT, logFile, core: 0 })
const jar = new Map()
async function request(path, form) {
  const res = await fetch(`${service.base}${path}`, {
    method: form === undefined ? 'GET' : 'POST',
    redirect: 'manual',
    headers: {
      accept: 'text/html',
      cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
      ...(form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(form !== undefined && { body: new URLSearchParams(form).toString() }),
  })
  for (const line of res.headers.getSetCookie()) {
    const [name, value] = line.split(';')[0].split('=')
    jar.set(name, value)
  }
  return { status: res.status, id: res.headers.get('x-request-id'), body: await res.text() }
}
const csrfOf = (body) => /name="csrf" value="([^"]+)"/.exec(body)?.[1]
const invitePath = new URL(invite).pathname
const set = await request(invitePath, { csrf: csrfOf((await request(invitePath)).body), password: PASSWORD })
if (set.status !== 303) throw new Error(`setting the password: ${set.status}`)
const signIn = await request('/dashboard/sign-in', {
  csrf: csrfOf((await request('/dashboard/sign-in')).body),
  email: EMAIL,
  password: PASSWORD,
})
if (signIn.status !== 303) throw new Error(`sign-in: ${signIn.status}`)

// An operator for the console's pages, signed in the same way with a cookie jar of its own.
const ownerJar = new Map(jar)
const adminInvite = execFileSync(process.execPath, [BIN, 'user', 'invite', '--admin', '--email', ADMIN_EMAIL], {
  env,
})
  .toString()
  .match(/https?:\/\/\S+\/dashboard\/invite\/\S+/)?.[0]
if (adminInvite === undefined) throw new Error('user invite --admin printed no link')
jar.clear()
const adminPath = new URL(adminInvite).pathname
await request(adminPath, { csrf: csrfOf((await request(adminPath)).body), password: PASSWORD })
const adminSignIn = await request('/dashboard/sign-in', {
  csrf: csrfOf((await request('/dashboard/sign-in')).body),
  email: ADMIN_EMAIL,
  password: PASSWORD,
})
if (adminSignIn.status !== 303) throw new Error(`operator sign-in: ${adminSignIn.status}`)
const adminJar = new Map(jar)

const day = (ms) => new Date(ms).toISOString().slice(0, 10)
const filled = (page) =>
  page
    .replaceAll('{invoice}', sample.invoice)
    .replaceAll('{order}', sample.order)
    .replaceAll('{merchant}', merchant.merchant_id)
    .replaceAll('{from}', day(now - 60 * DAY))
    .replaceAll('{to}', day(now - 30 * DAY))
const ids = new Map(PAGES.map((p) => [p, []]))
for (const page of PAGES) {
  const as = page.startsWith('/dashboard/console') ? adminJar : ownerJar
  jar.clear()
  for (const [k, v] of as) jar.set(k, v)
  for (let i = 0; i < WARMUP + REQUESTS; i += 1) {
    const res = await request(filled(page))
    if (res.status !== 200) throw new Error(`${page}: ${res.status} ${res.body.slice(0, 200)}`)
    if (i >= WARMUP) ids.get(page).push(res.id)
  }
}
await service.stop()

// The server's own time of each request, from the access log.
const ms = new Map()
for (const line of readFileSync(logFile, 'utf8').split('\n')) {
  if (!line.includes('"request completed"')) continue
  const entry = JSON.parse(line)
  if (entry.reqId !== undefined) ms.set(entry.reqId, entry.ms)
}
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
const results = PAGES.map((page) => {
  const times = ids
    .get(page)
    .map((id) => ms.get(id))
    .filter((v) => typeof v === 'number')
    .sort((a, b) => a - b)
  if (times.length !== REQUESTS) throw new Error(`${page}: ${times.length} of ${REQUESTS} requests in the access log`)
  return {
    page,
    requests: times.length,
    p50_ms: quantile(times, 0.5),
    p95_ms: quantile(times, 0.95),
    max_ms: times.at(-1),
  }
})

const machine = machineInfo()
console.log(
  `\nmachine: ${machine.cpus} × ${machine.model}, Node ${machine.node}; ${PG_URL === undefined ? 'SQLite' : 'PostgreSQL'}, ${TOTAL.toLocaleString('en')} invoices of one merchant over ${DAYS} days\n`,
)
console.log('| page | p50 ms | p95 ms | max ms | < 50 ms |')
console.log('|---|---:|---:|---:|---|')
for (const r of results)
  console.log(
    `| \`${r.page}\` | ${r.p50_ms.toFixed(2)} | ${r.p95_ms.toFixed(2)} | ${r.max_ms.toFixed(2)} | ${r.max_ms < 50 ? 'yes' : 'NO'} |`,
  )
let commit
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim()
} catch {
  commit = undefined // not a git checkout
}
const run = {
  at: new Date().toISOString(),
  commit,
  machine,
  database: PG_URL === undefined ? 'sqlite' : 'postgres',
  invoices: TOTAL,
  refunds,
  deliveries,
  seed_s: Math.round(seedSeconds * 10) / 10,
  results,
}
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
const file = join(ROOT, 'bench', 'results', `dashboard-${run.at.replace(/[:.]/g, '-')}.json`)
writeFileSync(file, JSON.stringify(run, null, 2))
const historyFile = join(ROOT, 'bench', 'history', 'dashboard.json')
const history = existsSync(historyFile) ? JSON.parse(readFileSync(historyFile, 'utf8')) : { runs: [] }
history.runs.push(run)
writeFileSync(historyFile, `${JSON.stringify(history, null, 2)}\n`)
console.log(`\nwritten: ${file}; kept in bench/history/dashboard.json`)
rmSync(work, { recursive: true, force: true })
if (PG_URL !== undefined) await pgQuery(PG_URL, `drop schema ${pgSchema} cascade`)
