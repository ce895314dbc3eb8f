// Driver for in-process timing and bench/instructions.mjs: GET /api/invoice/getInfo through the whole app (routing,
// authentication with the key cache as in production, rate limit, validation, the lookup, the answer), by
// app.inject — no sockets, so the count is the service's own work. INSTR_N getInfo requests after 1000 of warm-up,
// all for one invoice.
//
//   node bench/drivers/get-info-inject.mjs [dist directory; default dist/]
// With TIME=1 it prints the CPU and wall time per request of the measured loop.
// Comparing two versions: build each, then run this driver against each one's dist/ (a paired measurement).
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

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
const created = await app.inject({
  method: 'POST',
  url: '/api/v1/invoices',
  headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
  payload: '{"order_id":"G-1","amount":"100.50","currency":"RUB","service":"card"}',
})
if (created.statusCode !== 201) throw new Error(`create: ${created.statusCode} ${created.body}`)
// the original API answers a create with the invoice id in `order_id`
const url = `/api/invoice/getInfo?merchant_id=${merchant.id}&invoice_id=${created.json().order_id}`
const N = Number(process.env.INSTR_N ?? 0)
const getInfo = () => app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } })
for (let i = 0; i < 1000; i++) await getInfo()
const started = process.hrtime.bigint()
const cpu0 = process.cpuUsage()
let failed = 0
for (let i = 0; i < N; i++) if ((await getInfo()).statusCode !== 200) failed += 1
const ns = Number(process.hrtime.bigint() - started)
const cpu = process.cpuUsage(cpu0)
if (failed > 0) throw new Error(`${failed} getInfo requests failed`)
if (process.env.TIME) {
  const per = (us) => Math.round((us / Math.max(N, 1)) * 10) / 10
  console.log(
    JSON.stringify({
      requests: N,
      cpu_us_per_request: per(cpu.user + cpu.system),
      wall_us_per_request: per(ns / 1000),
    }),
  )
}
await rt.close()
