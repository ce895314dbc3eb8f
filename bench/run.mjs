#!/usr/bin/env node
// `npm run bench`: the service on its default configuration, measured with wrk side by side with a bare
// node:http server answering a fixed JSON of a getInfo response's size (this machine's limit) in the same run.
// On SQLite it also measures the floors of getInfo's and create's own work (bench/floor-server.mjs: the same key
// lookup, read, view, headers, log line and metrics on node:http without the framework, against the same database
// file; the same parse, insert with group commit, QR code and answer, against a database file of its own).
//
//   BENCH_DURATION=10  seconds per profile       BENCH_CONNECTIONS=50   wrk connections
//   BENCH_SEED=3000    invoices seeded for getInfo     BENCH_WARMUP=3  seconds of the same load, unmeasured, first
//   BENCH_DATABASE_URL=postgres://…  run the service on PostgreSQL instead of a fresh SQLite file
//   BENCH_NODE_ARGS="--single-threaded-gc"  Node flags for the service (docs/performance.md#reproduce)
//   BENCH_RUNS=3       whole runs (a fresh database and servers each); prints the median of each figure
//   BENCH_SLICES=5     slices each profile's measured seconds are cut into, alternating with the other profiles
//                      of its group (the floor beside the service: the host's speed drifts within a run)
//
// The headline is each profile against its floor (getInfo and create: their req/s over their floor's); the ratio to
// the bare server stays in the table as context. The JSON keeps every run's figures (`runs`) beside the medians.
//
// Needs wrk (Debian: apt-get install wrk) and a built dist/ (npm run build). Writes bench/results/<time>.json.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  ROOT,
  startNodeOptions,
  createMerchant,
  hasTaskset,
  invoiceRequestsLua,
  machineInfo,
  MIXED_REQUEST,
  pin,
  requireWrk,
  runWrk,
  seedInvoices,
  serviceEnv,
  startService,
  waitFor,
  wrkScript,
} from './lib.mjs'
import { coreShares, coreTimes, processCpuSeconds } from './cpu.mjs'
import { combineSlices, headline, medianOfRuns, withRatios } from './summary.mjs'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SEED = Number(process.env.BENCH_SEED ?? 3000)
// Each profile runs unmeasured first: the first moments of a new load pay for V8 compiling its code path, which
// put p99s of 100–300 ms into 10-second measurements of a server whose steady p99 is near 10 ms.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const DATABASE_URL = process.env.BENCH_DATABASE_URL
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter((a) => a !== '')
const RUNS = Number(process.env.BENCH_RUNS ?? 1)
const SLICES = Number(process.env.BENCH_SLICES ?? 5)
requireWrk()

const PORT = 18080
const BARE_PORT = 18081
const FLOOR_PORT = 18082

/** One whole run: a fresh database, the servers, every profile measured; its results with their ratios. */
async function run() {
  const work = mkdtempSync(join(tmpdir(), 'invoice-bench-'))
  const env = serviceEnv(DATABASE_URL ?? `sqlite:${join(work, 'bench.db')}`)
  // A merchant for the run, created with the CLI as an operator would.
  const merchant = createMerchant(env)

  const service = await startService({
    env,
    port: PORT,
    logFile: join(work, 'service.log'),
    core: 0,
    nodeArgs: NODE_ARGS,
  })

  const base = `http://127.0.0.1:${PORT}`
  const headers = { 'content-type': 'application/json', 'x-api-key': merchant.api_key }
  const ids = await seedInvoices(base, merchant, SEED)
  writeFileSync(join(work, 'ids.txt'), ids.join('\n'))
  const sample = await (
    await fetch(`${base}/api/invoice/getInfo?merchant_id=${merchant.merchant_id}&invoice_id=${ids[0]}`, { headers })
  ).text()

  // The limit: the same machine, a bare server, a fixed body of the same size.
  const bareScript = `const http=require('node:http');const b=Buffer.from(${JSON.stringify(sample)});http.createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json','content-length':b.length});s.end(b)}).listen(${BARE_PORT},'127.0.0.1')`
  const [bareCmd, bareArgs] = pin(0, process.execPath, ['-e', bareScript])
  const bare = spawn(bareCmd, bareArgs, { stdio: 'inherit' })
  await waitFor(`http://127.0.0.1:${BARE_PORT}/`)
  let floor
  if (DATABASE_URL === undefined) {
    // create's floor writes to a database of its own, made by the service's migrations with a merchant in it
    const createDb = join(work, 'floor-create.db')
    const createMerchantId = createMerchant(serviceEnv(`sqlite:${createDb}`)).merchant_id
    // on the service's own Node options, as npm start runs it
    const [floorCmd, floorArgs] = pin(0, process.execPath, [
      ...startNodeOptions(),
      join(ROOT, 'bench', 'floor-server.mjs'),
      String(FLOOR_PORT),
      join(work, 'bench.db'),
      join(work, 'floor.log'),
      createDb,
    ])
    floor = spawn(floorCmd, floorArgs, {
      stdio: 'inherit',
      env: {
        ...process.env,
        FLOOR_API_KEY: merchant.api_key,
        FLOOR_CREATE_MERCHANT: createMerchantId,
        FLOOR_PUBLIC_URL: env.PUBLIC_URL,
      },
    })
    await waitFor(`http://127.0.0.1:${FLOOR_PORT}/`)
  }

  const IDS = invoiceRequestsLua(join(work, 'ids.txt'), merchant)
  const lua = (body) => wrkScript(work, body)
  const profiles = [
    {
      key: 'bare',
      name: 'bare node:http (the limit)',
      url: `http://127.0.0.1:${BARE_PORT}/`,
      pid: bare.pid,
      script: lua(''),
    },
    ...(floor === undefined
      ? []
      : [
          {
            key: 'floor-getinfo',
            name: "floor: getInfo's own work without the framework",
            url: `http://127.0.0.1:${FLOOR_PORT}/`,
            pid: floor.pid,
            script: lua(`${IDS}\nrequest = getinfo`),
          },
        ]),
    ...(floor === undefined
      ? []
      : [
          {
            key: 'floor-create',
            name: "floor: create's own work without the framework",
            url: `http://127.0.0.1:${FLOOR_PORT}/`,
            pid: floor.pid,
            script: lua(`${IDS}\nrequest = create`),
          },
        ]),
    {
      key: 'getinfo',
      floor: floor === undefined ? undefined : 'floor-getinfo',
      name: 'getInfo',
      url: base,
      pid: service.child.pid,
      script: lua(`${IDS}\nrequest = getinfo`),
    },
    {
      key: 'create',
      floor: floor === undefined ? undefined : 'floor-create',
      name: 'create',
      url: base,
      pid: service.child.pid,
      script: lua(`${IDS}\nrequest = create`),
    },
    {
      key: 'mixed',
      name: 'mixed (80% getInfo, 20% create)',
      url: base,
      pid: service.child.pid,
      script: lua(`${IDS}\nrequest = ${MIXED_REQUEST}`),
    },
  ]

  // The service's own time per request over a profile, from its access log (`ms`: from the request's arrival in
  // the framework to its answer written): what wrk measures beyond it was spent queued, in the kernel or in wrk.
  const LOG = join(work, 'service.log')
  const logSize = () => statSync(LOG).size
  function serverTimes(from) {
    const text = readFileSync(LOG).subarray(from).toString('utf8')
    const ms = [...text.matchAll(/"ms":([0-9.]+),"msg":"request completed"/g)].map((m) => Number(m[1]))
    ms.sort((a, b) => a - b)
    return { p99_ms: ms[Math.floor(ms.length * 0.99)] ?? NaN, max_ms: ms.at(-1) ?? NaN }
  }

  // Profiles measured side by side, in alternating slices of DURATION / SLICES seconds: the host's speed drifts
  // by more within a run than the differences measured (one run's getInfo was 1.33 of its floor, measured 20 s
  // apart), and a ratio is only as good as the two measurements were made on the same machine. The bare server
  // alternates with getInfo's floor and getInfo, create's floor with create; mixed, with no floor, runs whole.
  const byKey = new Map(profiles.map((p) => [p.key, p]))
  const groups = [['bare', 'floor-getinfo', 'getinfo'], ['floor-create', 'create'], ['mixed']]
  const measured = new Map()
  for (const group of groups) {
    const members = group.map((key) => byKey.get(key)).filter((p) => p !== undefined)
    for (const p of members)
      if (WARMUP > 0) runWrk({ url: p.url, script: p.script, connections: CONNECTIONS, duration: WARMUP })
    const rounds = members.length > 1 ? SLICES : 1
    const seconds = Math.max(1, Math.round(DURATION / rounds))
    // every group has the service in it at most once, so its log lines from here on are that profile's
    const from = logSize()
    for (const p of members) measured.set(p.key, { slices: [], cpu: 0, cores: undefined })
    for (let round = 0; round < rounds; round++) {
      for (const p of members) {
        const m = measured.get(p.key)
        const cpuBefore = processCpuSeconds(p.pid)
        const coresBefore = coreTimes()
        m.slices.push(runWrk({ url: p.url, script: p.script, connections: CONNECTIONS, duration: seconds }))
        const cpuAfter = processCpuSeconds(p.pid)
        const coresAfter = coreTimes()
        m.cpu =
          cpuBefore === undefined || cpuAfter === undefined || m.cpu === undefined
            ? undefined
            : m.cpu + cpuAfter - cpuBefore
        // each core's counters over this profile's slices only, added up
        m.cores =
          coresBefore === undefined || coresAfter === undefined
            ? undefined
            : coresAfter.map((now, c) => now.map((v, k) => v - (coresBefore[c]?.[k] ?? 0) + (m.cores?.[c]?.[k] ?? 0)))
      }
    }
    const service = members.find((p) => p.url === base)
    if (service !== undefined) {
      // the log is written asynchronously: a moment for its last lines
      await new Promise((done) => setTimeout(done, 500))
      measured.get(service.key).server = serverTimes(from)
    }
  }

  const results = []
  for (const p of profiles) {
    const m = measured.get(p.key)
    const r = combineSlices(m.slices)
    results.push({
      key: p.key,
      profile: p.name,
      ...(p.floor === undefined ? {} : { floor: p.floor }),
      rps: r.rps,
      p50_ms: r.p50_ms,
      p99_ms: r.p99_ms,
      errors: r.errors,
      server_time: m.server,
      // the server process's CPU (all its threads) per answered request, and how busy each core was meanwhile
      cpu_us_per_request: m.cpu === undefined ? undefined : (m.cpu * 1e6) / r.requests,
      cores: m.cores === undefined ? undefined : coreShares([], m.cores),
      slices: m.slices.length,
    })
  }
  bare.kill('SIGTERM')
  floor?.kill('SIGTERM')
  await service.stop()
  rmSync(work, { recursive: true, force: true })
  return withRatios(results)
}

const runs = []
for (let i = 0; i < RUNS; i++) {
  runs.push(await run())
  if (RUNS > 1) console.log(`run ${i + 1} of ${RUNS}: ${headline(runs[i]).join('; ')}`)
}
const results = medianOfRuns(runs)

const machine = machineInfo()
console.log(
  `\nmachine: ${machine.cpus} × ${machine.model}, Node ${machine.node}; ${hasTaskset ? 'server on core 0, wrk on core 1' : 'not pinned (no taskset)'}`,
)
console.log(
  `database: ${DATABASE_URL ? 'PostgreSQL' : 'SQLite (synchronous=full)'}; ${CONNECTIONS} connections, ${DURATION} s per profile after ${WARMUP} s of warm-up, ${SEED} seeded invoices${NODE_ARGS.length > 0 ? `; service started with node ${NODE_ARGS.join(' ')}` : ''}${RUNS > 1 ? `; the median of ${RUNS} runs` : ''}\n`,
)
for (const line of headline(results)) console.log(line)
console.log('')
// CPU columns: the server's CPU time per request, and each core's busy share (with pinning, the server's core
// first, then wrk's): a core near 100 % is where the profile's limit is.
const withCpu = results.every((r) => r.cpu_us_per_request !== undefined && r.cores !== undefined)
const coresHeading = hasTaskset ? 'busy: server core / wrk core' : 'busy: each core'
console.log(
  `| profile | req/s | p50 ms | p99 ms | errors | ratio to floor | ratio to bare | time in the service p99 / max ms |${withCpu ? ` server CPU µs/request | ${coresHeading} |` : ''}`,
)
console.log(`|---|---:|---:|---:|---:|---:|---:|---:|${withCpu ? '---:|---:|' : ''}`)
for (const r of results) {
  const own =
    r.server_time === undefined ? '' : `${r.server_time.p99_ms.toFixed(2)} / ${r.server_time.max_ms.toFixed(1)}`
  // pinned: the two cores the heading names (0 for the server, 1 for wrk), whatever else the machine has
  const shown = hasTaskset ? r.cores.slice(0, 2) : r.cores
  const cpu = withCpu
    ? ` ${r.cpu_us_per_request.toFixed(1)} | ${shown.map((c) => `${Math.round(c.busy * 100)} %`).join(' / ')} |`
    : ''
  const toFloor = r.ratio_to_floor === undefined ? '' : r.ratio_to_floor.toFixed(2)
  console.log(
    `| ${r.profile} | ${Math.round(r.rps).toLocaleString('en')} | ${r.p50_ms.toFixed(2)} | ${r.p99_ms.toFixed(2)} | ${r.errors} | ${toFloor} | ${r.ratio.toFixed(2)} | ${own} |${cpu}`,
  )
}
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
const file = join(ROOT, 'bench', 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(
  file,
  JSON.stringify(
    {
      at: new Date().toISOString(),
      machine,
      database: DATABASE_URL ? 'postgres' : 'sqlite',
      node_args: NODE_ARGS,
      connections: CONNECTIONS,
      duration_s: DURATION,
      warmup_s: WARMUP,
      // one run: its figures; several: the median of each (errors: all runs' added up), every run's in `runs`
      results,
      ...(RUNS > 1 ? { runs } : {}),
    },
    null,
    2,
  ),
)
console.log(`\nwritten: ${file}`)
