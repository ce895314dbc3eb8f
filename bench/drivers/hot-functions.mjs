// Driver for bench/instructions.mjs: one small function of every request, INSTR_N times after 2000 calls of warm-up.
//
//   node bench/drivers/hot-functions.mjs <iso|uuid|metrics>
//   iso      isoTime of a timestamp a second after the last (getInfo's view has two, a webhook one)
//   uuid     a UUIDv7 (one per create)
//   metrics  the access metrics of a request: prom-client's counter inc and histogram observe, labelled series
import { createRequire } from 'node:module'

const dist = new URL('../../dist/', import.meta.url)
const mode = process.argv[2]
const { Counter, Histogram, Registry } = createRequire(import.meta.url)('prom-client')
const { createUuidV7 } = await import(new URL('adapters/system/uuid-v7.js', dist).href)
const { isoTime } = await import(new URL('domain/iso-time.js', dist).href)

const registry = new Registry()
const count = new Counter({
  name: 'http_requests_total',
  help: 'requests',
  labelNames: ['method', 'route', 'status_code'],
  registers: [registry],
}).labels('GET', '/api/invoice/getInfo', '200')
const latency = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'latency',
  labelNames: ['method', 'route'],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
}).labels('GET', '/api/invoice/getInfo')
const newId = createUuidV7()

let sink = 0
const operations = {
  iso: (i) => (sink += isoTime(new Date(1_795_727_692_876 + i * 1000)).length),
  uuid: () => (sink += newId().length),
  metrics: (i) => {
    count.inc()
    latency.observe((i & 7) / 1000)
  },
}
const operation = operations[mode]
if (operation === undefined) {
  console.error('usage: node bench/drivers/hot-functions.mjs <iso|uuid|metrics>')
  process.exit(2)
}
for (let i = 0; i < 2000; i++) operation(i)
const N = Number(process.env.INSTR_N ?? 0)
for (let i = 0; i < N; i++) operation(i)
if (process.env.TIME) console.log(JSON.stringify({ mode, sink }))
