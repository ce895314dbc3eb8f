/**
 * A storage fault on the embedded SQLite database, seen over HTTP (docs/api.md#errors `unavailable`, docs/operations.md#storage-faults): another
 * process takes the database's write lock and keeps it (`BEGIN EXCLUSIVE` on a second connection — a real lock
 * on the real file, which stops root as well as anyone, unlike file modes). The real server, as a child process:
 * - writes answer 503 `unavailable` problems with Retry-After, never 500, and write nothing;
 * - the process stays responsive meanwhile (/healthz answers at once: no lock wait blocks the event loop);
 * - after one full wait has run out, further writes fail at once instead of queueing for the lock one by one;
 * - /readyz answers 503 although reads still work (in WAL mode a `select 1` would not notice);
 * - when the lock is released, readiness and writes come back without a restart.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createMerchantWithCli, startServer, stopServer, type ServerProcess } from '../helpers/server-process.js'

const dir = mkdtempSync(join(tmpdir(), 'invoice-storage-fault-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The server's busy timeout (openSqliteStore's default): how long a write waits for the lock before 503. */
const BUSY_TIMEOUT_MS = 5000

describe('SQLite storage fault over HTTP', () => {
  it('when another process holds the write lock, then writes answer 503 unavailable without blocking the process or writing anything, /readyz fails, and both recover without a restart', async () => {
    const db = join(dir, 'fault.db')
    const env = {
      DATABASE_URL: `sqlite:${db}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_RPS: '10000',
      RATE_LIMIT_BURST: '10000',
    }
    const m = await createMerchantWithCli(env)
    const server: ServerProcess = await startServer(env)
    const headers = { 'content-type': 'application/json', 'x-api-key': m.api_key }
    const create = (orderId: string) =>
      fetch(`${server.base}/api/v1/invoices`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ order_id: orderId, amount: '10.00', currency: 'RUB' }),
      })
    const getInfo = (orderId: string) =>
      fetch(`${server.base}/api/invoice/getInfo?merchant_id=${m.merchant_id}&order_id=${orderId}`, { headers })
    const simulate = (id: string) =>
      fetch(`${server.base}/pay/${id}/simulate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"outcome":"paid"}',
      })
    const timed = async <T>(work: Promise<T>): Promise<[T, number]> => {
      const start = performance.now()
      const out = await work
      return [out, performance.now() - start]
    }
    const lock = new BetterSqlite3(db)
    try {
      const before = await create('before')
      expect(before.status).toBe(201)
      const pendingId = ((await before.json()) as { order_id: string }).order_id
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200)

      lock.exec('begin exclusive') // the fault: held until released below

      // a burst of writes during the fault: creates and a payment
      const writes = Promise.all([...Array.from({ length: 8 }, (_, i) => create(`during-${i}`)), simulate(pendingId)])
      // meanwhile the process answers at once: nothing waits for the lock on the event loop
      const healthLatencies: number[] = []
      const polling = (async () => {
        const until = performance.now() + BUSY_TIMEOUT_MS - 500
        while (performance.now() < until) {
          const [res, ms] = await timed(fetch(`${server.base}/healthz`))
          healthLatencies.push(ms)
          expect(res.status).toBe(200)
          await new Promise((r) => setTimeout(r, 100))
        }
      })()
      // readiness follows the write path, quickly, though reads work
      const [ready, readyMs] = await timed(fetch(`${server.base}/readyz`))
      expect(ready.status).toBe(503)
      expect(ready.headers.get('content-type')).toContain('application/problem+json')
      expect(((await ready.json()) as { code: string }).code).toBe('unavailable')
      expect(readyMs).toBeLessThan(2500)
      const read = await getInfo('before')
      expect(read.status).toBe(200) // reads go on in WAL mode: a degraded service, not a dead one

      const answers = await writes
      await polling
      expect(Math.max(...healthLatencies)).toBeLessThan(500)
      expect(healthLatencies.length).toBeGreaterThan(10)
      for (const res of answers) {
        expect(res.status).toBe(503)
        expect(res.headers.get('content-type')).toContain('application/problem+json')
        expect(res.headers.get('retry-after')).toBe('1')
        const body = (await res.json()) as { code: string; detail: string }
        expect(body.code).toBe('unavailable')
        expect(body.detail).not.toMatch(/SQLITE|locked/i) // no internals
      }

      // the lock is known lost now: a further write fails at once instead of waiting its full busy timeout
      const [again, againMs] = await timed(create('during-again'))
      expect(again.status).toBe(503)
      await again.arrayBuffer()
      expect(againMs).toBeLessThan(1000)
      expect((await fetch(`${server.base}/readyz`)).status).toBe(503)

      lock.exec('rollback') // the fault clears; the server is not restarted

      await expect
        .poll(async () => (await fetch(`${server.base}/readyz`)).status, { timeout: 3000, interval: 50 })
        .toBe(200)
      // nothing of the refused writes was stored: the same order ids are new, the invoice is still pending
      for (const orderId of [...Array.from({ length: 8 }, (_, i) => `during-${i}`), 'during-again']) {
        const res = await getInfo(orderId)
        expect(res.status, orderId).toBe(404)
        await res.arrayBuffer()
      }
      expect(((await (await getInfo('before')).json()) as { status: string }).status).toBe('pending')
      const after = await create('during-0')
      expect(after.status).toBe(201)
      expect(((await after.json()) as { is_new: boolean }).is_new).toBe(true)
      const paid = await simulate(pendingId)
      expect(paid.status).toBe(200)
      await paid.arrayBuffer()
      expect(((await (await getInfo('before')).json()) as { status: string }).status).toBe('paid')

      expect(server.child.exitCode).toBeNull() // the same process all along
      expect(server.output).not.toContain('unhandled error') // no 500 was logged
      expect(server.output).toContain('storage unavailable')
    } finally {
      if (lock.inTransaction) lock.exec('rollback')
      lock.close()
      await stopServer(server)
    }
  })

  it('when the database file is removed under the running server, then writes answer 503 and /readyz fails instead of being acknowledged into the removed file', async () => {
    const home = join(dir, 'removed')
    mkdirSync(home)
    const db = join(home, 'gone.db')
    const env = { DATABASE_URL: `sqlite:${db}`, NODE_ENV: 'production', LOG_LEVEL: 'warn' }
    const m = await createMerchantWithCli(env)
    const server: ServerProcess = await startServer(env)
    const headers = { 'content-type': 'application/json', 'x-api-key': m.api_key }
    const create = (orderId: string) =>
      fetch(`${server.base}/api/v1/invoices`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ order_id: orderId, amount: '10.00', currency: 'RUB' }),
      })
    try {
      const before = await create('before')
      expect(before.status).toBe(201)
      const id = ((await before.json()) as { order_id: string }).order_id
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200)

      // the operator's mistake: the database's directory moved away and deleted (its files stay open in the process)
      renameSync(home, `${home}-moved`)
      rmSync(`${home}-moved`, { recursive: true, force: true })

      const during = await create('during')
      expect(during.status).toBe(503)
      expect(((await during.json()) as { code: string }).code).toBe('unavailable')
      const paid = await fetch(`${server.base}/pay/${id}/simulate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"outcome":"paid"}',
      })
      expect(paid.status).toBe(503)
      await paid.arrayBuffer()
      const ready = await fetch(`${server.base}/readyz`)
      expect(ready.status).toBe(503)
      expect(((await ready.json()) as { code: string }).code).toBe('unavailable')
      expect(server.child.exitCode).toBeNull()
      expect(server.output).not.toContain('unhandled error')
    } finally {
      await stopServer(server)
    }
  })
})
