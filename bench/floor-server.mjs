// The floor of getInfo's own work, for `npm run bench`: a node:http server that does what every getInfo answer
// needs and nothing else — no framework, no hooks, no promises, no validation beyond the two ids:
//   the API key hashed (SHA-256) and looked up in a Map; the invoice read by id on a read-only connection to the
//   bench's own SQLite file (WAL, a prepared statement in raw mode); the row mapped and viewed by the service's own
//   code (dist/: the driver's rowMaker, rowToInvoice, invoiceView); JSON.stringify; the same 12 response headers; one pino access-log
//   line to a file (through the service's own log writer); a prom-client counter and histogram. It writes its answers and shares its read snapshot as the
//   service does: the answers of one event-loop pass written together at its end, the reads of one pass in one
//   read transaction.
// It answers only the well-formed happy path the bench sends (anything else: 404), so it is not a service, only
// a measure: how close to the bare server getInfo could come on this machine if the framework cost nothing.
//
//   node bench/floor-server.mjs <port> <sqlite file> <log file>   (the API key in FLOOR_API_KEY)
import { hash, randomUUID } from 'node:crypto'
import { openSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { INVOICE_COLUMNS, rowToInvoice } from '../dist/adapters/db/schema.js'
import { rowMaker } from '../dist/adapters/db/sqlite-driver.js'
import { invoiceView } from '../dist/domain/invoice-view.js'
import { LogWriter } from '../dist/adapters/system/log-writer.js'

const require = createRequire(import.meta.url)
const Database = require('better-sqlite3')
const pino = require('pino')
const { Counter, Histogram, Registry } = require('prom-client')

const [port, dbFile, logFile] = process.argv.slice(2)
const db = new Database(dbFile, { readonly: true })
const byId = db.prepare(`select ${INVOICE_COLUMNS.map((c) => `"${c}"`).join(', ')} from invoices where id = ?`).raw(true)
const toRow = rowMaker(INVOICE_COLUMNS)
const begin = db.prepare('begin')
const commit = db.prepare('commit')
let snapshot = false
const endSnapshot = () => {
  snapshot = false
  commit.run()
}
// answers waiting for the end of the pass: response, body, response, body…
let waiting = []
const flush = () => {
  const batch = waiting
  waiting = []
  for (let i = 0; i < batch.length; i += 2) batch[i].end(batch[i + 1])
}

const keyHash = hash('sha256', process.env.FLOOR_API_KEY ?? '', 'hex')
const merchantOfKey = new Map([[keyHash, db.prepare('select merchant_id from api_keys where hash = ?').pluck().get(keyHash)]])

const logger = pino({ level: 'info' }, new LogWriter(openSync(logFile, 'a')))
const registry = new Registry()
const requests = new Counter({ name: 'http_requests_total', help: 'requests', labelNames: ['method', 'route', 'status_code'], registers: [registry] }).labels('GET', '/api/invoice/getInfo', '200')
const latency = new Histogram({ name: 'http_request_duration_seconds', help: 'latency', labelNames: ['method', 'route'], registers: [registry] }).labels('GET', '/api/invoice/getInfo')

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const SECURITY = ['content-security-policy', "default-src 'none';frame-ancestors 'none'", 'x-content-type-options', 'nosniff', 'x-frame-options', 'DENY', 'referrer-policy', 'no-referrer', 'strict-transport-security', 'max-age=31536000; includeSubDomains']

createServer((req, res) => {
  const started = performance.now()
  const q = new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1))
  const merchantId = q.get('merchant_id')
  const invoiceId = q.get('invoice_id')
  const key = req.headers['x-api-key']
  if (!snapshot) {
    begin.run()
    snapshot = true
    setImmediate(endSnapshot)
  }
  const row = typeof key === 'string' && UUID.test(merchantId) && UUID.test(invoiceId) && merchantOfKey.get(hash('sha256', key, 'hex')) === merchantId ? byId.get(invoiceId) : undefined
  if (row === undefined || row[1] !== merchantId) {
    res.writeHead(404).end()
    return
  }
  const body = JSON.stringify(invoiceView(rowToInvoice(toRow(row)), new Date()))
  const reqId = randomUUID()
  res.writeHead(200, [...SECURITY, 'x-request-id', reqId, 'ratelimit-limit', '200', 'ratelimit-remaining', '199', 'ratelimit-reset', '1', 'content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(body))])
  if (waiting.length === 0) setImmediate(flush)
  waiting.push(res, body)
  const ms = performance.now() - started
  logger.info({ reqId, method: req.method, url: req.url, statusCode: 200, ms: Math.round(ms * 100) / 100 }, 'request completed')
  requests.inc()
  latency.observe(ms / 1000)
}).listen(Number(port), '127.0.0.1')
