import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeQrPng } from '../helpers/decode-qr.js'
import {
  createMerchantWithCli,
  freePort,
  ROOT,
  startServer,
  stopServer,
  type ServerProcess,
} from '../helpers/server-process.js'

const require = createRequire(import.meta.url)
const Database = require('better-sqlite3') as typeof import('better-sqlite3')

// bench/floor-server.mjs is the bench's measure of what getInfo and create cost without the framework. Its figures
// mean something only if it does the service's work: the same answer (fields, headers), a durable row, a log line.
describe('bench floor server', () => {
  let dir: string
  let service: ServerProcess
  let floor: ReturnType<typeof spawn>
  let floorBase: string
  let merchant: { merchant_id: string; api_key: string }
  const serviceDb = () => join(dir, 'service.db')
  const floorDb = () => join(dir, 'floor.db')

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'floor-'))
    // a public URL one byte longer than the default's: its pay URLs make version-5 QR codes, where the default's make
    // version 4 — the floor must make the service's
    const env = { DATABASE_URL: `sqlite:${serviceDb()}`, PUBLIC_URL: 'http://localhost:18080' }
    merchant = await createMerchantWithCli(env)
    const floorMerchant = await createMerchantWithCli({ DATABASE_URL: `sqlite:${floorDb()}` })
    service = await startServer(env)
    const port = await freePort()
    floorBase = `http://127.0.0.1:${port}`
    floor = spawn(
      process.execPath,
      [join(ROOT, 'bench', 'floor-server.mjs'), String(port), serviceDb(), join(dir, 'floor.log'), floorDb()],
      {
        env: {
          PATH: process.env['PATH'] ?? '',
          FLOOR_API_KEY: merchant.api_key,
          FLOOR_CREATE_MERCHANT: floorMerchant.merchant_id,
          FLOOR_PUBLIC_URL: env.PUBLIC_URL,
        },
        stdio: 'inherit',
      },
    )
    for (let i = 0; ; i++) {
      const up = await fetch(`${floorBase}/`).then(
        () => true,
        () => false,
      )
      if (up) break
      if (i > 100) throw new Error('the floor server did not start')
      await new Promise((r) => setTimeout(r, 50))
    }
  })
  afterAll(async () => {
    floor?.kill()
    if (service !== undefined) await stopServer(service)
    rmSync(dir, { recursive: true, force: true })
  })

  const create = (base: string, orderId: string) =>
    fetch(`${base}/api/v1/invoices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': merchant.api_key },
      body: JSON.stringify({ order_id: orderId, amount: '100.00', currency: 'RUB' }),
    })
  // what both servers send; Node adds date, connection and keep-alive itself
  const headerNames = (res: Response) =>
    [...res.headers.keys()].filter((h) => !['date', 'connection', 'keep-alive'].includes(h)).sort()

  it("when it creates, then its answer is the service's (fields, headers, a QR of pay_url) and the row is committed before it", async () => {
    const [ours, its] = await Promise.all([create(service.base, 'F-1'), create(floorBase, 'F-1')])
    expect(its.status).toBe(201)
    const body = (await its.json()) as Record<string, unknown>
    const serviceBody = (await ours.json()) as Record<string, unknown>
    expect(Object.keys(body)).toEqual(Object.keys(serviceBody))
    expect(body['amount']).toBe('100.00')
    expect(body['is_new']).toBe(true)
    expect(body['pay_url']).toBe(`http://localhost:18080/pay/${String(body['order_id'])}`)
    const png = Buffer.from(String(body['qr_image']).replace(/^data:image\/png;base64,/, ''), 'base64')
    expect(decodeQrPng(png)).toBe(body['pay_url'])
    // the same image: its width (IHDR) equal to the service's, its size within what different ids compress to
    const servicePng = Buffer.from(String(serviceBody['qr_image']).replace(/^data:image\/png;base64,/, ''), 'base64')
    expect(png.readUInt32BE(16)).toBe(servicePng.readUInt32BE(16))
    expect(Math.abs(png.length - servicePng.length)).toBeLessThan(100)
    expect(headerNames(its)).toEqual(headerNames(ours))

    // answered only after its COMMIT: another connection sees the row
    const db = new Database(floorDb(), { readonly: true })
    try {
      const row = db.prepare('select order_id, amount, status from invoices where id = ?').get(body['order_id'])
      expect(row).toEqual({ order_id: 'F-1', amount: 10000, status: 'pending' })
    } finally {
      db.close()
    }
  })

  it("when it answers getInfo, then with the service's body and headers, and logs the request id", async () => {
    const created = (await (await create(service.base, 'G-1')).json()) as { order_id: string }
    const url = `/api/invoice/getInfo?merchant_id=${merchant.merchant_id}&invoice_id=${created.order_id}`
    const headers = { 'x-api-key': merchant.api_key }
    const [ours, its] = await Promise.all([fetch(service.base + url, { headers }), fetch(floorBase + url, { headers })])
    expect(its.status).toBe(200)
    expect(await its.json()).toEqual(await ours.json())
    expect(headerNames(its)).toEqual(headerNames(ours))
    const requestId = its.headers.get('x-request-id')
    // the log writer writes asynchronously
    await expect
      .poll(() => readFileSync(join(dir, 'floor.log'), 'utf8'), { timeout: 5000, interval: 50 })
      .toContain(`"reqId":"${requestId}"`)
  })
})
