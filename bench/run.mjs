#!/usr/bin/env node
// `npm run bench`: the service on its default configuration, measured with wrk side by side with a bare
// node:http server answering a fixed JSON of a getInfo response's size (this machine's limit) in the same run.
//
//   BENCH_DURATION=10  seconds per profile       BENCH_CONNECTIONS=50   wrk connections
//   BENCH_SEED=3000    invoices seeded for getInfo
//   BENCH_DATABASE_URL=postgres://…  run the service on PostgreSQL instead of a fresh SQLite file
//
// Needs wrk (Debian: apt-get install wrk) and a built dist/ (npm run build). Writes bench/results/<time>.json.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SEED = Number(process.env.BENCH_SEED ?? 3000)
const DATABASE_URL = process.env.BENCH_DATABASE_URL
const work = mkdtempSync(join(tmpdir(), 'invoice-bench-'))
const hasTaskset = spawnSync('taskset', ['-V']).status === 0 && cpus().length >= 2
const pin = (core, cmd, args) => (hasTaskset ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args])

if (spawnSync('wrk', ['-v']).error) {
  console.error('bench: wrk is not installed (Debian: apt-get install wrk)')
  process.exit(1)
}

const dbUrl = DATABASE_URL ?? `sqlite:${join(work, 'bench.db')}`
const serviceEnv = { ...process.env, DATABASE_URL: dbUrl, LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'full', NODE_ENV: 'production', RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000' }
const bin = join(ROOT, 'bin', 'invoice-service.js')

// A merchant for the run, created with the CLI as an operator would.
const merchant = JSON.parse(execFileSync(process.execPath, [bin, 'merchant', 'create', '--name', 'Bench', '--json'], { env: serviceEnv }).toString())

const PORT = 18080
const BARE_PORT = 18081
const [svcCmd, svcArgs] = pin(0, process.execPath, [bin, 'serve'])
const logFile = join(work, 'service.log')
const { openSync } = await import('node:fs')
const service = spawn(svcCmd, svcArgs, { env: { ...serviceEnv, PORT: String(PORT) }, stdio: ['ignore', openSync(logFile, 'a'), 'inherit'] })
await waitFor(`http://127.0.0.1:${PORT}/readyz`)

const base = `http://127.0.0.1:${PORT}`
const headers = { 'content-type': 'application/json', 'x-api-key': merchant.api_key }
const ids = []
let next = 0
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < SEED) {
      const n = next++
      const res = await fetch(`${base}/api/v1/invoices`, { method: 'POST', headers, body: JSON.stringify({ order_id: `seed-${n}`, amount: '100.00', currency: 'RUB' }) })
      ids.push((await res.json()).order_id)
    }
  }),
)
writeFileSync(join(work, 'ids.txt'), ids.join('\n'))
const sample = await (await fetch(`${base}/api/invoice/getInfo?merchant_id=${merchant.merchant_id}&invoice_id=${ids[0]}`, { headers })).text()

// The limit: the same machine, a bare server, a fixed body of the same size.
const bareScript = `const http=require('node:http');const b=Buffer.from(${JSON.stringify(sample)});http.createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json','content-length':b.length});s.end(b)}).listen(${BARE_PORT},'127.0.0.1')`
const [bareCmd, bareArgs] = pin(0, process.execPath, ['-e', bareScript])
const bare = spawn(bareCmd, bareArgs, { stdio: 'inherit' })
await waitFor(`http://127.0.0.1:${BARE_PORT}/`)

const lua = (body) => {
  const file = join(work, `s${Math.random().toString(36).slice(2)}.lua`)
  writeFileSync(file, `${body}\n${REPORT}`)
  return file
}
const REPORT = `done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format('{"requests":%d,"duration_us":%d,"errors":%d,"p50_ms":%.3f,"p99_ms":%.3f}\\n',
    summary.requests, summary.duration, errors, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end`
const IDS = `local ids = {}
for line in io.lines("${join(work, 'ids.txt')}") do ids[#ids + 1] = line end
local key, mid = "${merchant.api_key}", "${merchant.merchant_id}"
local n = 0
local function getinfo() return wrk.format("GET", "/api/invoice/getInfo?merchant_id=" .. mid .. "&invoice_id=" .. ids[math.random(1, #ids)], {["X-Api-Key"] = key}) end
local function create()
  n = n + 1
  return wrk.format("POST", "/api/v1/invoices", {["Content-Type"] = "application/json", ["X-Api-Key"] = key},
    '{"order_id":"b-' .. tostring(wrk.thread):sub(-8) .. '-' .. math.random(1, 1e9) .. '-' .. n .. '","amount":"100.00","currency":"RUB"}')
end`
const profiles = [
  { name: 'bare node:http (the limit)', url: `http://127.0.0.1:${BARE_PORT}/`, script: lua('') },
  { name: 'getInfo', url: base, script: lua(`${IDS}\nrequest = getinfo`) },
  { name: 'create', url: base, script: lua(`${IDS}\nrequest = create`) },
  { name: 'mixed (80% getInfo, 20% create)', url: base, script: lua(`${IDS}\nrequest = function() if math.random() < 0.8 then return getinfo() end return create() end`) },
]

const results = []
for (const p of profiles) {
  const [cmd, args] = pin(1, 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${DURATION}s`, '--latency', '-s', p.script, p.url])
  const out = spawnSync(cmd, args, { encoding: 'utf8' }).stdout
  const line = out.split('\n').find((l) => l.startsWith('{'))
  if (line === undefined) throw new Error(`wrk printed no summary for ${p.name}:\n${out}`)
  const r = JSON.parse(line)
  results.push({ profile: p.name, rps: r.requests / (r.duration_us / 1e6), p50_ms: r.p50_ms, p99_ms: r.p99_ms, errors: r.errors })
}
const limit = results[0].rps
for (const r of results) r.ratio = r.rps / limit

service.kill('SIGTERM')
bare.kill('SIGTERM')
await new Promise((r) => service.on('exit', r))

const machine = { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, pinned: hasTaskset }
console.log(`\nmachine: ${machine.cpus} × ${machine.model}, Node ${machine.node}; ${hasTaskset ? 'server on core 0, wrk on core 1' : 'not pinned (no taskset)'}`)
console.log(`database: ${DATABASE_URL ? 'PostgreSQL' : 'SQLite (synchronous=full)'}; ${CONNECTIONS} connections, ${DURATION} s per profile, ${SEED} seeded invoices\n`)
console.log('| profile | req/s | p50 ms | p99 ms | errors | ratio to bare |')
console.log('|---|---:|---:|---:|---:|---:|')
for (const r of results) {
  console.log(`| ${r.profile} | ${Math.round(r.rps).toLocaleString('en')} | ${r.p50_ms.toFixed(2)} | ${r.p99_ms.toFixed(2)} | ${r.errors} | ${r.ratio.toFixed(2)} |`)
}
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
const file = join(ROOT, 'bench', 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), machine, database: DATABASE_URL ? 'postgres' : 'sqlite', connections: CONNECTIONS, duration_s: DURATION, results }, null, 2))
console.log(`\nwritten: ${file}`)
rmSync(work, { recursive: true, force: true })

async function waitFor(url) {
  for (let i = 0; i < 200; i += 1) {
    try {
      await new Promise((resolve, reject) => http.get(url, (res) => (res.resume(), resolve())).on('error', reject))
      return
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error(`not up: ${url}`)
}
