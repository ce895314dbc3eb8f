// Builds compared side by side (docs/performance.md#reproduce): each checkout's built service serves at once, on
// core 0, each on a SQLite file of its own seeded with 2,000 invoices through its API; wrk (core 1) alternates
// between them in 2-s slices at 50 connections, after 3 s of warm-up each, so the host's drift falls on all of
// them alike. Prints one JSON line per build: the medians of its slices (req/s, p50, p99, server CPU µs per
// request), every slice's p99 and the failed requests.
//
//   node bench/side-by-side.mjs <getinfo|create|mixed> <slices> <checkout>...
//   (each checkout built: npm run build; e.g. a worktree of the commit before a change, and this one). A checkout
//   listed twice is served by two processes: list each build two or three times, because two processes of one
//   build differ by up to ±5 % (bench/history/changes.json, "measurement").
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { processCpuSeconds } from './cpu.mjs'
import {
  createMerchant,
  invoiceRequestsLua,
  MIXED_REQUEST,
  runWrk,
  seedInvoices,
  serviceEnv,
  startService,
  wrkScript,
} from './lib.mjs'
import { median } from './summary.mjs'

const [profile, slicesArg, ...checkouts] = process.argv.slice(2)
const REQUESTS = { getinfo: 'getinfo', create: 'create', mixed: MIXED_REQUEST }
const slices = Number(slicesArg)
if (!(profile in REQUESTS) || !Number.isSafeInteger(slices) || slices < 1 || checkouts.length === 0) {
  console.error('usage: node bench/side-by-side.mjs <getinfo|create|mixed> <slices> <checkout>...')
  process.exit(2)
}

const builds = []
for (const [i, checkout] of checkouts.entries()) {
  const work = mkdtempSync(join(tmpdir(), 'side-by-side-'))
  const env = serviceEnv(`sqlite:${join(work, 'bench.db')}`)
  const bin = join(checkout, 'bin', 'invoice-service.js')
  const merchant = createMerchant(env, 'Bench', bin)
  const service = await startService({ env, port: 18100 + i, logFile: join(work, 'service.log'), core: 0, bin })
  writeFileSync(join(work, 'ids.txt'), (await seedInvoices(service.base, merchant, 2000)).join('\n'))
  const script = wrkScript(
    work,
    `${invoiceRequestsLua(join(work, 'ids.txt'), merchant)}\nrequest = ${REQUESTS[profile]}`,
  )
  builds.push({ checkout, service, script, slices: [] })
}

for (const b of builds) runWrk({ url: b.service.base, script: b.script, connections: 50, duration: 3 })
for (let i = 0; i < slices; i += 1) {
  // each build first in turn
  for (const b of i % 2 === 0 ? builds : [...builds].reverse()) {
    const before = processCpuSeconds(b.service.child.pid)
    const r = runWrk({ url: b.service.base, script: b.script, connections: 50, duration: 2 })
    b.slices.push({ ...r, cpuUs: ((processCpuSeconds(b.service.child.pid) - before) * 1e6) / r.requests })
  }
}
for (const b of builds) {
  const of = (key) => median(b.slices.map((s) => s[key]))
  console.log(
    JSON.stringify({
      checkout: b.checkout,
      rps: Math.round(of('rps')),
      p50_ms: of('p50_ms'),
      p99_ms: of('p99_ms'),
      cpu_us: Math.round(of('cpuUs') * 10) / 10,
      slices_p99_ms: b.slices.map((s) => s.p99_ms),
      errors: b.slices.reduce((n, s) => n + s.errors, 0),
    }),
  )
  await b.service.stop()
}
