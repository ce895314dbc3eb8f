// Driver for bench/instructions.mjs: qrDataUri of pay URLs as the service makes them (PUBLIC_URL + /pay/ + a
// UUIDv7; version 4, 33 modules), INSTR_N times after 2000 calls of warm-up.
//
//   node bench/drivers/qr-data-uri.mjs [module exporting qrDataUri; default dist/http/qr.js]
// With TIME=1 it also prints the µs per call of the measured loop, wall and CPU (a tight loop, so a best case).
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const module = process.argv[2] ?? new URL('../../dist/http/qr.js', import.meta.url).pathname
const { qrDataUri } = await import(pathToFileURL(resolve(module)).href)
const N = Number(process.env.INSTR_N ?? 0)
// 64 distinct ids, as a UUIDv7 looks (time, version 7, variant, random)
const urls = Array.from(
  { length: 64 },
  (_, i) =>
    `http://127.0.0.1:3000/pay/0197${i.toString(16).padStart(4, '0')}-7c1a-7def-8abc-${(0x1234567890ab + i * 7919).toString(16).padStart(12, '0')}`,
)
let sink = 0
for (let i = 0; i < 2000; i++) sink += qrDataUri(urls[i & 63]).length
const started = process.hrtime.bigint()
const cpu = process.cpuUsage()
for (let i = 0; i < N; i++) sink += qrDataUri(urls[i & 63]).length
const { user, system } = process.cpuUsage(cpu)
const ns = Number(process.hrtime.bigint() - started)
// CPU time as well as wall time: on a shared machine, wall time includes other processes' turns on the core
const perCall = (us) => us / Math.max(N, 1)
if (process.env.TIME)
  console.log(
    JSON.stringify({ calls: N, us_per_call: perCall(ns / 1000), cpu_us_per_call: perCall(user + system), sink }),
  )
