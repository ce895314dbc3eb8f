// What the in-process drivers share (create-invoice.mjs, get-info.mjs): the whole app of a build's dist/, on
// in-memory SQLite with the log silenced (BENCH_LOG_LEVEL to keep it) and the rate limits out of the way, one merchant; and the measured loop —
// warm-up, then (under bench/instructions.mjs with INSTR_TOGGLE=1) callgrind switched on, INSTR_N operations, and
// with TIME=1 the CPU and wall time per operation printed as JSON.
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

/** The app of the build at `distArg` (default: this checkout's dist/), with one merchant and its API key. */
export async function benchApp(distArg) {
  const dist = resolve(distArg ?? new URL('../../dist', import.meta.url).pathname)
  const load = (path) => import(pathToFileURL(`${dist}/${path}`).href)
  const { loadConfig } = await load('config/config.js')
  const { currencyExponent } = await load('domain/currencies.js')
  const { createRuntime } = await load('wiring/runtime.js')
  const { createHttpApp } = await load('wiring/http.js')
  const { cliCommands } = await load('wiring/cli.js')
  const config = loadConfig(
    {
      DATABASE_URL: 'sqlite::memory:',
      // BENCH_LOG_LEVEL=info counts the access log too (its lines go to standard output)
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
      PUBLIC_URL: 'http://127.0.0.1:3000',
      RATE_LIMIT_RPS: '1000000',
      RATE_LIMIT_BURST: '1000000',
    },
    currencyExponent,
  )
  const rt = await createRuntime(config)
  const app = await createHttpApp(rt, { defaultMetrics: false })
  await app.ready()
  const { apiKey, merchant } = await cliCommands(rt).createMerchant({ name: 'Bench Shop' })
  return { rt, app, apiKey, merchantId: merchant.id }
}

/** 200 invoices made by creates through `app`, and the getInfo path of each (the getInfo drivers' reads). */
export async function seedGetInfoPaths(app, apiKey, merchantId) {
  const paths = []
  for (let i = 0; i < 200; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      payload: `{"order_id":"S-${i}","amount":"100.50","currency":"RUB","service":"card"}`,
    })
    if (res.statusCode !== 201) throw new Error(`seeding: ${res.statusCode} ${res.body}`)
    paths.push(`/api/invoice/getInfo?merchant_id=${merchantId}&invoice_id=${res.json().order_id}`)
  }
  return paths
}

/** The getInfo drivers' measured loop: `getInfo` answered 200 once, then `measure`d (INSTR_WARMUP, 2000, first). */
export async function measureGetInfo(rt, getInfo) {
  const first = await getInfo()
  if (first.statusCode !== 200) throw new Error(`getInfo: ${first.statusCode} ${first.body ?? ''}`)
  await measure(rt, {
    operation: getInfo,
    status: 200,
    warmup: Number(process.env.INSTR_WARMUP ?? 2000),
    unit: 'getinfo',
    counted: 'requests',
  })
}

/**
 * `warmup` operations, then INSTR_N measured ones, each answered `status` (throws otherwise); with TIME=1 prints
 * `{ <counted>: N, cpu_us_per_<unit>, wall_us_per_<unit> }`. Closes the runtime.
 */
export async function measure(rt, { operation, status, warmup, unit, counted }) {
  const N = Number(process.env.INSTR_N ?? 0)
  for (let i = 0; i < warmup; i++) await operation()
  // under bench/instructions.mjs with INSTR_TOGGLE=1, callgrind counts from here on only
  if (process.env.INSTR_TOGGLE) await promisify(execFile)('callgrind_control', ['-i', 'on', String(process.pid)])
  const started = process.hrtime.bigint()
  const cpu0 = process.cpuUsage()
  let failed = 0
  for (let i = 0; i < N; i++) if ((await operation()).statusCode !== status) failed += 1
  const ns = Number(process.hrtime.bigint() - started)
  const cpu = process.cpuUsage(cpu0)
  if (failed > 0) throw new Error(`${failed} of ${N} ${counted} failed`)
  if (process.env.TIME) {
    const per = (us) => Math.round((us / Math.max(N, 1)) * 10) / 10
    // CPU time per operation is what a shared machine's other work inflates least; the wall time is given beside it
    console.log(
      JSON.stringify({
        [counted]: N,
        [`cpu_us_per_${unit}`]: per(cpu.user + cpu.system),
        [`wall_us_per_${unit}`]: per(ns / 1000),
      }),
    )
  }
  await rt.close()
}
