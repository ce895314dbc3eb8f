// The floor of getInfo's own work, for `npm run bench`: a node:http server that does what every getInfo answer
// needs and nothing else — no framework, no hooks, no promises, no validation beyond the two ids:
//   the query read by the service's own reader (its fast path's plainQuery) and both ids checked by its parseUuid;
//   the API key hashed (SHA-256) and looked up in a Map; the invoice read by id and merchant on a read-only
//   connection to the bench's own SQLite file (WAL, a prepared statement in raw mode, the 12 columns the service's
//   getInfo reads); the row mapped and viewed by the service's own code (dist/: the driver's rowMaker,
//   rowToInvoiceInfo, invoiceView); JSON.stringify; the same 13 response headers; one access-log
//   line to a file (the service's own: its logAnswered, through its log writer); the request counter and histogram
//   (the service's own RequestMetrics). It writes its answers and shares its read snapshot as the
//   service does: the answers of one event-loop pass written together at its end, the reads of one pass in one
//   read transaction.
// The same for create (POST /api/v1/invoices), on a database file of its own made by the service's migrations: the
// body read and parsed (JSON.parse), the key as above, order_id, amount (the service's parseAmount) and currency
// checked, a UUIDv7 id (the service's generator), the row made by the service's invoiceToRow and inserted by the
// service's statement (ON CONFLICT on the live-order index), the QR data URI by the service's http/qr.ts, the
// answer by its createResponseToWire, the same headers, log line and metrics; the inserts of one event-loop pass
// in one transaction committed at its end (WAL, synchronous=FULL), and no answer before that COMMIT returned; the
// WAL checkpointed on a thread, set up by the service's own checkpointOffTheLoop (sqlite/sqlite-store.ts).
// It answers only the well-formed happy path the bench sends (anything else: 404), so it is not a service, only
// a measure: how close to the bare server getInfo and create could come on this machine if the framework cost
// nothing.
//
//   node bench/floor-server.mjs <port> <sqlite file> <log file> <create sqlite file>
//   (the bench's API key in FLOOR_API_KEY; the merchant the create database holds in FLOOR_CREATE_MERCHANT; the
//   service's PUBLIC_URL in FLOOR_PUBLIC_URL)
import { hash, randomUUID } from 'node:crypto'
import { openSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { INVOICE_COLUMNS, INVOICE_INFO_COLUMNS, rowToInvoiceInfo } from '../dist/adapters/db/schema.js'
import { rowMaker } from '../dist/adapters/db/sqlite/statements.js'
import { invoiceView } from '../dist/domain/invoice-view.js'
import { LogWriter } from '../dist/adapters/system/log-writer.js'
import { API_SECURITY_HEADERS, logAnswered } from '../dist/http/plugins/request-id.js'
import { HTTP_DURATION_BUCKETS } from '../dist/http/plugins/metrics.js'
import { RequestMetrics } from '../dist/http/plugins/request-metrics.js'
import { plainQuery } from '../dist/http/get-info-fast-path.js'
import { parseUuid } from '../dist/domain/ids.js'
import { createUuidV7 } from '../dist/adapters/system/uuid-v7.js'
import { parseAmount } from '../dist/domain/money.js'
import { invoiceToRow } from '../dist/adapters/db/schema.js'
import { createResponseToWire } from '../dist/http/dto.js'
import { qrDataUri } from '../dist/http/qr.js'
import { checkpointOffTheLoop } from '../dist/adapters/db/sqlite/sqlite-store.js'

const require = createRequire(import.meta.url)
const Database = require('better-sqlite3')
const pino = require('pino')
const { Registry } = require('prom-client')

const [port, dbFile, logFile, createDbFile] = process.argv.slice(2)
const db = new Database(dbFile, { readonly: true })
const infoById = db
  .prepare(
    `select ${INVOICE_INFO_COLUMNS.map((c) => `"${c}"`).join(', ')} from invoices where id = ? and merchant_id = ?`,
  )
  .raw(true)
const toRow = rowMaker(INVOICE_INFO_COLUMNS)
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
const merchantOfKey = new Map([
  [keyHash, db.prepare('select merchant_id from api_keys where hash = ?').pluck().get(keyHash)],
])

const logger = pino({ level: 'info' }, new LogWriter(openSync(logFile, 'a')))
// the service's request metrics (its own buckets), one series for each endpoint's answers
const requestMetrics = new RequestMetrics(new Registry(), HTTP_DURATION_BUCKETS)
const getInfoServed = requestMetrics.recorder('GET', '/api/invoice/getInfo', 200)
const createServed = requestMetrics.recorder('POST', '/api/v1/invoices', 201)

// the service's own security headers, in its order
const SECURITY = Object.entries(API_SECURITY_HEADERS).flat()

function getInfo(req, res) {
  const started = performance.now()
  const q = plainQuery(req.url)
  const merchantId = q?.merchantId
  const invoiceId = q?.invoiceId
  const key = req.headers['x-api-key']
  if (!snapshot) {
    begin.run()
    snapshot = true
    setImmediate(endSnapshot)
  }
  const row =
    typeof key === 'string' &&
    merchantId !== undefined &&
    parseUuid(merchantId) === merchantId &&
    invoiceId !== undefined &&
    parseUuid(invoiceId) === invoiceId &&
    merchantOfKey.get(hash('sha256', key, 'hex')) === merchantId
      ? infoById.get(invoiceId, merchantId)
      : undefined
  if (row === undefined) {
    res.writeHead(404).end()
    return
  }
  const body = JSON.stringify(invoiceView(rowToInvoiceInfo(toRow(row), invoiceId, merchantId), new Date()))
  const reqId = randomUUID()
  res.writeHead(200, [
    ...SECURITY,
    'x-request-id',
    reqId,
    'cache-control',
    'no-store',
    'ratelimit-limit',
    '200',
    'ratelimit-remaining',
    '199',
    'ratelimit-reset',
    '1',
    'content-type',
    'application/json; charset=utf-8',
    'content-length',
    String(Buffer.byteLength(body)),
  ])
  if (waiting.length === 0) setImmediate(flush)
  waiting.push(res, body)
  const ms = performance.now() - started
  logAnswered(logger, req.method, req.url, 200, ms, reqId)
  getInfoServed(ms)
}

// create: a writable connection as the service's (WAL, synchronous=FULL), the service's insert statement
const writer = new Database(createDbFile)
writer.pragma('journal_mode = WAL')
writer.pragma('synchronous = FULL')
writer.pragma('foreign_keys = ON')
const insert = writer.prepare(
  `insert into "invoices" (${INVOICE_COLUMNS.map((c) => `"${c}"`).join(', ')}) values (${INVOICE_COLUMNS.map(() => '?').join(', ')}) ` +
    `on conflict ("merchant_id", "order_id") where status in ('pending', 'hold', 'paid') do nothing`,
)
const beginWrite = writer.prepare('begin')
const commitWrite = writer.prepare('commit')
// checkpoints as the service makes them: on a thread of their own, which takes the writer's turn between two
// batches to start a grown WAL over (the creates that arrive meanwhile wait for it, as in the service's driver)
const checkpointer = checkpointOffTheLoop(writer, { path: createDbFile, synchronous: 'full' })
let handingOver = false
let heldBack = []
const createMerchant = process.env.FLOOR_CREATE_MERCHANT
const newId = createUuidV7()
// the service's own PUBLIC_URL (FLOOR_PUBLIC_URL; the service's default without it), so that both encode the same
// pay URLs: a QR code's version (its size, and the work of making it) follows the URL's length — at error
// correction M, a 62-byte URL fits version 4 (33×33), a 63-byte one needs version 5 (37×37)
const PUBLIC_URL = process.env.FLOOR_PUBLIC_URL ?? 'http://localhost:8080'
// creates of the open batch waiting for its COMMIT: response, body, response, body…
let batch = []
const commitBatch = () => {
  const answers = batch
  batch = []
  commitWrite.run()
  checkpointer.committed()
  for (let i = 0; i < answers.length; i += 2) answers[i].end(answers[i + 1])
  const handedOver = checkpointer.handOverIfAsked()
  if (handedOver === undefined) return
  handingOver = true
  handedOver.then(() => {
    handingOver = false
    const held = heldBack
    heldBack = []
    for (const run of held) run()
  })
}

function create(req, res) {
  const started = performance.now()
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', function answer() {
    if (handingOver) {
      heldBack.push(answer)
      return
    }
    const key = req.headers['x-api-key']
    let input
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      input = undefined
    }
    const amount = typeof input?.amount === 'string' ? parseAmount(input.amount, 2) : { ok: false }
    if (
      typeof key !== 'string' ||
      hash('sha256', key, 'hex') !== keyHash ||
      typeof input.order_id !== 'string' ||
      input.order_id.length === 0 ||
      input.order_id.length > 128 ||
      !amount.ok ||
      input.currency !== 'RUB'
    ) {
      res.writeHead(404).end()
      return
    }
    const now = new Date()
    const id = newId()
    const payUrl = `${PUBLIC_URL}/pay/${id}`
    const invoice = {
      id,
      merchantId: createMerchant,
      orderId: input.order_id,
      amount: amount.minor,
      currency: 'RUB',
      status: 'pending',
      service: 'card',
      comment: null,
      callbackUrl: null,
      successUrl: null,
      failUrl: null,
      payUrl,
      qrData: payUrl,
      credited: null,
      fee: 0,
      expiresAt: new Date(now.getTime() + 3_600_000),
      paidAt: null,
      heldAt: null,
      createdAt: now,
      updatedAt: now,
    }
    if (batch.length === 0) {
      beginWrite.run()
      setImmediate(commitBatch)
    }
    const row = invoiceToRow(invoice)
    if (insert.run(INVOICE_COLUMNS.map((c) => row[c])).changes !== 1) {
      res.writeHead(404).end()
      return
    }
    const body = JSON.stringify(createResponseToWire(invoice, true, PUBLIC_URL, qrDataUri(invoice.qrData)))
    const reqId = randomUUID()
    res.writeHead(201, [
      ...SECURITY,
      'x-request-id',
      reqId,
      'cache-control',
      'no-store',
      'ratelimit-limit',
      '200',
      'ratelimit-remaining',
      '199',
      'ratelimit-reset',
      '1',
      'content-type',
      'application/json; charset=utf-8',
      'content-length',
      String(Buffer.byteLength(body)),
    ])
    batch.push(res, body)
    const ms = performance.now() - started
    logAnswered(logger, req.method, req.url, 201, ms, reqId)
    createServed(ms)
  })
}

createServer((req, res) => (req.method === 'POST' ? create(req, res) : getInfo(req, res))).listen(
  Number(port),
  '127.0.0.1',
)
