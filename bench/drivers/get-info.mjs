// Driver for bench/instructions.mjs: GET /api/invoice/getInfo through the whole app (routing, authentication, rate
// limit, query validation, the getInfo use case, an in-memory SQLite read, the answer's view, headers, access log and
// metrics), by app.inject — no sockets, so the count is the service's own work. 200 invoices made by creates first,
// then INSTR_N reads (round robin over them) after INSTR_WARMUP (2000) of warm-up.
//
//   node bench/drivers/get-info.mjs [dist directory; default dist/]
// With TIME=1 it prints the CPU and wall time per getInfo of the measured loop.
// Comparing two versions: build each, then run this driver against each one's dist/ (a paired measurement).
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

const dist = resolve(process.argv[2] ?? new URL('../../dist', import.meta.url).pathname)
const load = (path) => import(pathToFileURL(`${dist}/${path}`).href)
const { loadConfig } = await load('config/config.js')
const { currencyExponent } = await load('domain/currencies.js')
const { createRuntime } = await load('wiring/runtime.js')
const { createHttpApp } = await load('wiring/http.js')
const { cliCommands } = await load('wiring/cli.js')

const config = loadConfig(
  {
    DATABASE_URL: 'sqlite::memory:',
    LOG_LEVEL: 'silent',
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
const merchantId = merchant.id
const urls = []
for (let i = 0; i < 200; i++) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/invoices',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    payload: `{"order_id":"S-${i}","amount":"100.50","currency":"RUB","service":"card"}`,
  })
  if (res.statusCode !== 201) throw new Error(`seeding: ${res.statusCode} ${res.body}`)
  urls.push(`/api/invoice/getInfo?merchant_id=${merchantId}&invoice_id=${res.json().order_id}`)
}
const N = Number(process.env.INSTR_N ?? 0)
let i = 0
const getInfo = () => app.inject({ method: 'GET', url: urls[i++ % 200], headers: { 'x-api-key': apiKey } })
{
  const r = await getInfo()
  if (r.statusCode !== 200) throw new Error(`getInfo: ${r.statusCode} ${r.body}`)
}
for (let k = 0; k < Number(process.env.INSTR_WARMUP ?? 2000); k++) await getInfo()
// under bench/instructions.mjs with INSTR_TOGGLE=1, callgrind counts from here on only
if (process.env.INSTR_TOGGLE) await promisify(execFile)('callgrind_control', ['-i', 'on', String(process.pid)])
const started = process.hrtime.bigint()
const cpu0 = process.cpuUsage()
let failed = 0
for (let k = 0; k < N; k++) if ((await getInfo()).statusCode !== 200) failed += 1
const ns = Number(process.hrtime.bigint() - started)
const cpu = process.cpuUsage(cpu0)
if (failed > 0) throw new Error(`${failed} getInfo requests failed`)
if (process.env.TIME) {
  const per = (us) => Math.round((us / Math.max(N, 1)) * 10) / 10
  console.log(
    JSON.stringify({
      requests: N,
      cpu_us_per_getinfo: per(cpu.user + cpu.system),
      wall_us_per_getinfo: per(ns / 1000),
    }),
  )
}
await rt.close()
