// What the bench scripts share: starting the built service as an operator would, pinning processes to cores,
// and running wrk with a Lua script that prints one JSON summary line.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { openSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(ROOT, 'bin', 'invoice-service.js')
export const hasTaskset = spawnSync('taskset', ['-V']).status === 0 && cpus().length >= 2

/** `[command, args]` running `cmd` on one core when taskset exists. */
export function pin(core, cmd, args) {
  return hasTaskset ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args]
}

export function machineInfo() {
  return { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, pinned: hasTaskset }
}

/**
 * The public URL of the default configuration (PORT 8080), whatever port a bench serves on: pay URLs (and the QR codes
 * of them in every create answer) as long as `npm start`'s. A QR code's version follows the URL's length: at the
 * bench's own ports the URL was one byte longer, past what version 4 holds, and each create made a version-5 code
 * (bench/history/changes.json, 'one public URL').
 */
export const PUBLIC_URL = 'http://localhost:8080'

/** The service's configuration for a bench run: production mode, limits out of the way, the default public URL. */
export function serviceEnv(dbUrl, extra = {}) {
  return {
    ...process.env,
    DATABASE_URL: dbUrl,
    PUBLIC_URL,
    LOG_LEVEL: 'info',
    SQLITE_SYNCHRONOUS: 'full',
    NODE_ENV: 'production',
    RATE_LIMIT_RPS: '1000000',
    RATE_LIMIT_BURST: '1000000',
    ...extra,
  }
}

/**
 * A merchant created with the CLI, as an operator would: `{ merchant_id, api_key, webhook_secret, … }`. `bin`: another
 * checkout's CLI (bench/side-by-side.mjs).
 */
export function createMerchant(env, name = 'Bench', bin = BIN) {
  return JSON.parse(
    execFileSync(process.execPath, [bin, 'merchant', 'create', '--name', name, '--json'], { env }).toString(),
  )
}

/**
 * The Node options `npm start` runs a checkout's service with (docs/operations.md#node-options): what its start
 * script puts between `node` and `bin/invoice-service.js`.
 */
export function startNodeOptions(bin = BIN) {
  const { scripts } = JSON.parse(readFileSync(join(dirname(bin), '..', 'package.json'), 'utf8'))
  const started = /\bnode((?:\s+-\S+)*)\s+bin\/invoice-service\.js\b/.exec(scripts?.start ?? '')
  // a start script of another shape would leave the service measured without its options
  if (started === null) throw new Error(`npm start does not run node … bin/invoice-service.js: ${scripts?.start}`)
  return started[1].split(/\s+/).filter((a) => a !== '')
}

/**
 * Starts `invoice-service serve` as `npm start` runs it (its Node options, `startNodeOptions`; on `core` when given;
 * `bin`: another checkout's) with its log in `logFile`; resolves once /readyz answers. `stop()` sends SIGTERM and
 * waits for the exit.
 */
export async function startService({ env, port, logFile, core, nodeArgs = [], bin = BIN }) {
  const args = [...startNodeOptions(bin), ...nodeArgs, bin, 'serve']
  const [cmd, argv] = core === undefined ? [process.execPath, args] : pin(core, process.execPath, args)
  const child = spawn(cmd, argv, {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  await waitFor(`http://127.0.0.1:${port}/readyz`)
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * One invoice made through the API of a service started for it (then stopped): the template the scale benches'
 * seeded rows copy. `fields` are the create's optional fields. Resolves to the invoice's id.
 */
export async function templateInvoice({ env, port, logFile, merchant, fields }) {
  const service = await startService({ env, port, logFile })
  try {
    const created = await fetch(`${service.base}/api/v1/invoices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': merchant.api_key },
      body: JSON.stringify({ order_id: 'template', amount: '100.00', currency: 'RUB', ...fields }),
    })
    if (created.status !== 201) throw new Error(`template invoice: ${created.status} ${await created.text()}`)
    return (await created.json()).order_id
  } finally {
    await service.stop()
  }
}

/** Resolves once `url` answers at all (any status); gives up after 20 s. */
export async function waitFor(url) {
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

export function requireWrk() {
  if (spawnSync('wrk', ['-v']).error) {
    console.error('bench: wrk is not installed (Debian: apt-get install wrk)')
    process.exit(1)
  }
}

const REPORT = `done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format('{"requests":%d,"duration_us":%d,"errors":%d,"p50_ms":%.3f,"p99_ms":%.3f}\\n',
    summary.requests, summary.duration, errors, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end`

/** A wrk Lua script file in `dir`: `body` plus the JSON summary reporter. */
export function wrkScript(dir, body) {
  const file = join(dir, `s${Math.random().toString(36).slice(2)}.lua`)
  writeFileSync(file, `${body}\n${REPORT}`)
  return file
}

/**
 * Lua defining `getinfo()` (a random invoice of `idsFile`, one id per line) and `create()` (a unique order_id).
 */
export function invoiceRequestsLua(idsFile, merchant) {
  return `local ids = {}
for line in io.lines("${idsFile}") do ids[#ids + 1] = line end
local key, mid = "${merchant.api_key}", "${merchant.merchant_id}"
local n = 0
function getinfo() return wrk.format("GET", "/api/invoice/getInfo?merchant_id=" .. mid .. "&invoice_id=" .. ids[math.random(1, #ids)], {["X-Api-Key"] = key}) end
function create()
  n = n + 1
  return wrk.format("POST", "/api/v1/invoices", {["Content-Type"] = "application/json", ["X-Api-Key"] = key},
    '{"order_id":"b-' .. tostring(wrk.thread):sub(-8) .. '-' .. math.random(1, 1e9) .. '-' .. n .. '","amount":"100.00","currency":"RUB"}')
end`
}

/** Runs wrk (on core 1 when pinning) and returns `{ rps, p50_ms, p99_ms, errors, requests }`. */
export function runWrk({ url, script, connections, duration }) {
  const [cmd, args] = pin(1, 'wrk', ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', '-s', script, url])
  const out = spawnSync(cmd, args, { encoding: 'utf8' }).stdout
  const line = out.split('\n').find((l) => l.startsWith('{'))
  if (line === undefined) throw new Error(`wrk printed no summary for ${url}:\n${out}`)
  const r = JSON.parse(line)
  return {
    rps: r.requests / (r.duration_us / 1e6),
    p50_ms: r.p50_ms,
    p99_ms: r.p99_ms,
    errors: r.errors,
    requests: r.requests,
    seconds: r.duration_us / 1e6,
  }
}

/** wrk's `request` for the mixed profile: 80 % getInfo, 20 % create (with `invoiceRequestsLua`). */
export const MIXED_REQUEST = 'function() if math.random() < 0.8 then return getinfo() end return create() end'

/** Runs `task(0)` … `task(count - 1)`, `width` at a time. */
export async function inParallel(count, width, task) {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++)
    }),
  )
}

/** `count` invoices created through the API of the service at `base`, 32 at a time; resolves to their order ids. */
export async function seedInvoices(base, merchant, count) {
  const headers = { 'content-type': 'application/json', 'x-api-key': merchant.api_key }
  const ids = []
  await inParallel(count, 32, async (n) => {
    const res = await fetch(`${base}/api/v1/invoices`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ order_id: `seed-${n}`, amount: '100.00', currency: 'RUB' }),
    })
    ids.push((await res.json()).order_id)
  })
  return ids
}
