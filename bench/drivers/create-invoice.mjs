// Driver for bench/instructions.mjs: POST /api/v1/invoices through the whole app (routing, authentication, rate
// limit, validation, the create use case, an in-memory SQLite insert, the answer with its QR image), by
// app.inject — no sockets, so the count is the service's own work. INSTR_N creates after INSTR_WARMUP (1000) of warm-up, each a
// new order_id.
//
//   node bench/drivers/create-invoice.mjs [dist directory; default dist/]
// With TIME=1 it prints the CPU and wall time per create of the measured loop.
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
const { apiKey } = await cliCommands(rt).createMerchant({ name: 'Bench Shop' })
const N = Number(process.env.INSTR_N ?? 0)
let order = 0
const create = () =>
  app.inject({
    method: 'POST',
    url: '/api/v1/invoices',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    payload: `{"order_id":"B-${(order += 1)}","amount":"100.50","currency":"RUB","service":"card"}`,
  })
const WARMUP = Number(process.env.INSTR_WARMUP ?? 1000)
for (let i = 0; i < WARMUP; i++) await create()
// under bench/instructions.mjs with INSTR_TOGGLE=1, callgrind counts from here on only
if (process.env.INSTR_TOGGLE) await promisify(execFile)('callgrind_control', ['-i', 'on', String(process.pid)])
const started = process.hrtime.bigint()
const cpu0 = process.cpuUsage()
let failed = 0
for (let i = 0; i < N; i++) if ((await create()).statusCode !== 201) failed += 1
const ns = Number(process.hrtime.bigint() - started)
const cpu = process.cpuUsage(cpu0)
if (failed > 0) throw new Error(`${failed} creates failed`)
if (process.env.TIME) {
  const per = (us) => Math.round((us / Math.max(N, 1)) * 10) / 10
  // CPU time per create is what a shared machine's other work inflates least; the wall time is given beside it
  console.log(
    JSON.stringify({ creates: N, cpu_us_per_create: per(cpu.user + cpu.system), wall_us_per_create: per(ns / 1000) }),
  )
}
await rt.close()
