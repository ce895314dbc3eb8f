// @ts-check
/**
 * `npm run demo`: the invoice service and the demo shop together, on an embedded SQLite database in data/demo/.
 *
 * 1. creates a merchant with the service's CLI the first time (kept in data/demo/merchant.json);
 * 2. starts the service (`invoice-service serve`) with the settings a local shop needs: webhooks may go to a
 *    loopback address over http (WEBHOOK_ALLOW_PRIVATE, CALLBACK_ALLOW_HTTP — never in production);
 * 3. starts the shop (shop.js) with the merchant's API key and webhook secret, and prints its URL.
 *
 * Environment: DEMO_SERVICE_PORT (8080), DEMO_SHOP_PORT (3000), DEMO_DATA_DIR (data/demo).
 * Ctrl-C stops both. A port that is taken is named with the variable to change, and the demo exits 1 with nothing
 * left running.
 */
import { execFile, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startShop } from './shop.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const BIN = join(ROOT, 'bin', 'invoice-service.js')
const HOST = '127.0.0.1'

/** A TCP port from the environment; exits with a clear line when it is not one. @param {string} name @param {number} fallback */
function portFrom(name, fallback) {
  const text = process.env[name] ?? String(fallback)
  const port = Number(text)
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    console.error(`demo: ${name}=${text} is not a port number (1-65535)`)
    process.exit(1)
  }
  return port
}
const servicePort = portFrom('DEMO_SERVICE_PORT', 8080)
const shopPort = portFrom('DEMO_SHOP_PORT', 3000)
const dataDir = resolve(process.env['DEMO_DATA_DIR'] ?? join(ROOT, 'data', 'demo'))
const serviceUrl = `http://${HOST}:${servicePort}`

const serviceEnv = {
  PATH: process.env['PATH'] ?? '',
  PORT: String(servicePort),
  HOST,
  PUBLIC_URL: serviceUrl,
  DATABASE_URL: `sqlite:${join(dataDir, 'invoice-service.db')}`,
  LOG_LEVEL: process.env['DEMO_LOG_LEVEL'] ?? 'warn',
  // the shop runs on this machine and over plain http: allowed here, for local development only
  WEBHOOK_ALLOW_PRIVATE: 'true',
  CALLBACK_ALLOW_HTTP: 'true',
}

/** @typedef {{ merchant_id: string, api_key: string, webhook_secret: string }} DemoMerchant */

/** The demo merchant: created with the CLI on the first run, read back on later ones. @returns {Promise<DemoMerchant>} */
async function demoMerchant() {
  const file = join(dataDir, 'merchant.json')
  const database = join(dataDir, 'invoice-service.db')
  if (existsSync(file) && existsSync(database)) return JSON.parse(readFileSync(file, 'utf8'))
  rmSync(file, { force: true })
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [BIN, 'merchant', 'create', '--name', 'Demo Shop', '--json'],
    { env: serviceEnv },
  )
  const created = JSON.parse(stdout)
  /** @type {DemoMerchant} */
  const merchant = {
    merchant_id: created.merchant_id,
    api_key: created.api_key,
    webhook_secret: created.webhook_secret,
  }
  writeFileSync(file, `${JSON.stringify(merchant, null, 2)}\n`, { mode: 0o600 })
  console.log(`Created the demo merchant ${merchant.merchant_id} (credentials in ${file}).`)
  return merchant
}

/** Resolves once GET /readyz answers 200. @param {() => boolean} exited */
async function waitUntilReady(exited) {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (exited()) throw new Error('the invoice service exited while starting')
    try {
      if ((await fetch(`${serviceUrl}/readyz`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`the invoice service did not become ready at ${serviceUrl}`)
}

/** A port free right now, to suggest. @returns {Promise<number>} */
const freePort = () =>
  new Promise((resolvePort) => {
    const probe = createServer()
    probe.listen(0, HOST, () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address())
      probe.close(() => resolvePort(port))
    })
  })

/** The one line that says a port is taken and how to choose another. @param {number} port @param {string} variable @param {string} what */
const portTaken = async (port, variable, what) =>
  `demo: port ${port} (${what}) is taken on ${HOST}; stop what uses it or choose another port, e.g. ${variable}=${await freePort()} npm run demo`

/** Whether something already listens on HOST:port. @param {number} port @returns {Promise<boolean>} */
const isTaken = (port) =>
  new Promise((resolveTaken) => {
    const probe = createServer()
    probe.once('error', (/** @type {NodeJS.ErrnoException} */ err) => resolveTaken(err.code === 'EADDRINUSE'))
    probe.listen(port, HOST, () => probe.close(() => resolveTaken(false)))
  })

if (servicePort === shopPort) {
  console.error(`demo: DEMO_SERVICE_PORT and DEMO_SHOP_PORT are both ${shopPort}; give them different ports`)
  process.exit(1)
}
// before anything is started: nothing to stop when a port is taken
for (const [port, variable, what] of /** @type {const} */ ([
  [servicePort, 'DEMO_SERVICE_PORT', 'the invoice service'],
  [shopPort, 'DEMO_SHOP_PORT', 'the demo shop'],
])) {
  if (await isTaken(port)) {
    console.error(await portTaken(port, variable, what))
    process.exit(1)
  }
}

mkdirSync(dataDir, { recursive: true })
const merchant = await demoMerchant()

const service = spawn(process.execPath, [BIN, 'serve'], { env: serviceEnv, stdio: ['ignore', 'pipe', 'pipe'] })
// whatever ends this process (an exit, an uncaught error) ends the service too: it is never left running alone
process.on('exit', () => {
  if (!serviceExited) service.kill('SIGTERM')
})
let serviceExited = false
const prefix = (/** @type {NodeJS.ReadableStream} */ stream, /** @type {NodeJS.WriteStream} */ out) =>
  stream.on('data', (/** @type {Buffer} */ chunk) => {
    for (const line of chunk.toString().split('\n')) if (line.trim() !== '') out.write(`[service] ${line}\n`)
  })
prefix(service.stdout, process.stdout)
prefix(service.stderr, process.stderr)
const serviceDone = new Promise((resolveExit) =>
  service.on('exit', (code, signal) => {
    serviceExited = true
    resolveExit({ code, signal })
  }),
)

let shop
try {
  await waitUntilReady(() => serviceExited)
  shop = await startShop({
    serviceUrl,
    apiKey: merchant.api_key,
    merchantId: merchant.merchant_id,
    webhookSecret: merchant.webhook_secret,
    port: shopPort,
    host: HOST,
  })
} catch (err) {
  // a port taken between the check above and now (by another program starting meanwhile)
  const taken = /** @type {NodeJS.ErrnoException} */ (err).code === 'EADDRINUSE'
  console.error(
    taken
      ? await portTaken(shopPort, 'DEMO_SHOP_PORT', 'the demo shop')
      : `demo: ${err instanceof Error ? err.message : String(err)}`,
  )
  service.kill('SIGTERM')
  await serviceDone
  process.exit(1)
}

console.log(
  [
    '',
    `Demo shop:       ${shop.url}`,
    `Invoice service: ${serviceUrl}  (API reference: ${serviceUrl}/docs)`,
    '',
    'Open the shop, buy the mug, press "Pay" on the sandbox payment page and return to the shop. Ctrl-C stops both.',
    '',
  ].join('\n'),
)

let stopping = false
const stop = async (/** @type {number} */ code) => {
  if (stopping) return
  stopping = true
  await shop.close()
  if (!serviceExited) service.kill('SIGTERM')
  await serviceDone
  process.exit(code)
}
process.once('SIGINT', () => void stop(0))
process.once('SIGTERM', () => void stop(0))
void serviceDone.then(() => {
  if (!stopping) {
    console.error('demo: the invoice service stopped')
    void stop(1)
  }
})
