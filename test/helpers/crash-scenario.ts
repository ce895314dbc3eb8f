/**
 * The crash-safety scenario (test/e2e/crash-safety.test.ts on SQLite, test/e2e/postgres-crash.test.ts on
 * PostgreSQL): the real server as a child process under a load of concurrent creates and sandbox payments over
 * real sockets, every invoice with a callback_url at a real local receiver that verifies every signature; SIGKILL
 * mid-load, a restart on the same database, and the checks: every create answered 2xx is there as answered, every
 * payment answered 2xx reads `paid`, and every invoice that reads `paid` — acknowledged or not — has had its
 * `invoice.paid` webhook delivered, signed, at least once.
 */
import { expect } from 'vitest'
import { createMerchantWithCli, startServer, stopServer } from './server-process.js'
import { sleep, startReceiver } from './webhook-receiver.js'

const LOOPS = 16

interface Outcome {
  /** invoice id → order id, for every create answered 201 */
  readonly created: Map<string, string>
  /** invoice ids whose payment was answered 200 */
  readonly paid: Set<string>
  /** answers that were neither 2xx nor a connection error at the kill */
  readonly unexpected: string[]
}

/** Runs the scenario on `databaseUrl`; `webhookWaitMs`: how long after the restart every paid invoice's webhook may take. */
export async function crashAndRecover(
  databaseUrl: string,
  extraEnv: Record<string, string>,
  webhookWaitMs: number,
): Promise<void> {
  const rx = await startReceiver()
  const env = {
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    CALLBACK_ALLOW_HTTP: 'true',
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    ...extraEnv,
  }
  const m = await createMerchantWithCli(env)
  rx.secrets = [m.webhook_secret]
  const first = await startServer(env)
  const headers = { 'content-type': 'application/json', 'x-api-key': m.api_key }
  const out: Outcome = { created: new Map(), paid: new Set(), unexpected: [] }
  let killed = false

  const loop = async (n: number): Promise<void> => {
    for (let i = 0; !killed; i += 1) {
      try {
        const orderId = `C${n}-${i}`
        const res = await fetch(`${first.base}/api/v1/invoices`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ order_id: orderId, amount: '10.00', currency: 'RUB', callback_url: rx.url }),
        })
        const body = (await res.json()) as { order_id: string }
        if (res.status !== 201) {
          out.unexpected.push(`create ${res.status} ${JSON.stringify(body)}`)
          continue
        }
        out.created.set(body.order_id, orderId)
        if (n % 4 === 0) continue // some invoices stay pending
        const pay = await fetch(`${first.base}/pay/${body.order_id}/simulate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"outcome":"paid"}',
        })
        const payBody = await pay.text()
        if (pay.status === 200) out.paid.add(body.order_id)
        else out.unexpected.push(`simulate ${pay.status} ${payBody}`)
      } catch {
        // the connection died with the server: the answer is unknown, so nothing is claimed about this request
        if (!killed) await sleep(5)
      }
    }
  }
  const loops = Array.from({ length: LOOPS }, (_, n) => loop(n))
  await sleep(1500 + Math.floor(Math.random() * 500)) // steady load, then the kill at an arbitrary moment
  const paidBeforeKill = out.paid.size
  first.child.kill('SIGKILL')
  await first.exited
  killed = true
  await Promise.all(loops)
  expect(paidBeforeKill, 'the load was real').toBeGreaterThan(20)
  expect(out.unexpected).toEqual([])
  const webhooksBeforeKill = rx.received.length

  const second = await startServer(env)
  try {
    const get = async (id: string) => {
      const res = await fetch(`${second.base}/api/v1/invoices/${id}`, { headers })
      return { status: res.status, body: (await res.json()) as { order_id: string; status: string; amount: number } }
    }
    // every acknowledged create is there, every acknowledged payment is paid
    const lost: string[] = []
    for (const [id, orderId] of out.created) {
      const { status, body } = await get(id)
      if (status !== 200 || body.order_id !== orderId || body.amount !== 10)
        lost.push(`${id}: ${status} ${JSON.stringify(body)}`)
      else if (out.paid.has(id) && body.status !== 'paid')
        lost.push(`${id}: payment acknowledged, reads ${body.status}`)
    }
    expect(lost).toEqual([])

    // every paid invoice, acknowledged or not (a payment may have committed just before the kill, unanswered)
    const paidNow = new Set<string>()
    for (let cursor: string | null = null; ;) {
      const res = await fetch(
        `${second.base}/api/v1/invoices?status=paid&limit=200${cursor === null ? '' : `&cursor=${cursor}`}`,
        { headers },
      )
      const page = (await res.json()) as { data: { id: string }[]; next_cursor: string | null }
      for (const inv of page.data) paidNow.add(inv.id)
      if (page.next_cursor === null) break
      cursor = page.next_cursor
    }
    for (const id of out.paid) expect(paidNow.has(id), id).toBe(true)

    // … has had its invoice.paid webhook, signed, at least once; the restarted dispatcher sent what was pending
    const delivered = () =>
      new Set(
        rx.received
          .filter((h) => h.json.type === 'invoice.paid' && h.verifiedWith.length === 1)
          .map((h) => String(h.json.data['id'])),
      )
    const missing = () => [...paidNow].filter((id) => !delivered().has(id))
    await expect.poll(() => missing().length, { timeout: webhookWaitMs, interval: 100 }).toBe(0)
    expect(rx.received.every((h) => h.verifiedWith.length === 1)).toBe(true)
    // and only for invoices that are paid: no webhook announced a payment the database does not have
    expect([...delivered()].filter((id) => !paidNow.has(id))).toEqual([])
    console.info(
      `crash (${databaseUrl.split(':')[0]}): ${out.created.size} creates and ${out.paid.size} payments acknowledged, ${paidNow.size} paid; webhooks ${webhooksBeforeKill} before the kill, ${rx.received.length} in all`,
    )
  } finally {
    await stopServer(second)
    await rx.close()
  }
  expect((await second.exited).code).toBe(0)
}
