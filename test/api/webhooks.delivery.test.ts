/**
 * Webhook delivery end to end (docs/webhooks.md#delivery): the real app, the real dispatcher on the real clock, and a real HTTP
 * receiver on 127.0.0.1 that verifies every request with the standardwebhooks package.
 */
import { createServer as createTcpServer, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { rotateWebhookSecret } from '../../src/app/rotate-webhook-secret.js'
import { StoreUnavailableError, type Store } from '../../src/ports/store.js'
import { api, expectStatus, type Delivery, type InvoiceFields } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { sleep, startReceiver, type Receiver, type ReceivedWebhook } from '../helpers/webhook-receiver.js'

const BASE_ENV = {
  CALLBACK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.2',
  INVOICE_MIN_LIFETIME: '1',
}

interface Ctx {
  t: TestApp
  m: TestMerchant
  rx: Receiver
}

let open: Ctx[] = []
afterEach(async () => {
  for (const c of open) {
    await c.t.close()
    await c.rx.close()
  }
  open = []
})

async function setup(env: Record<string, string> = {}): Promise<Ctx> {
  const rx = await startReceiver()
  const t = await buildTestApp({ ...BASE_ENV, ...env }, { realClock: true, webhooks: true })
  const m = await t.merchant()
  rx.secrets = [m.webhookSecret]
  const c = { t, m, rx }
  open.push(c)
  return c
}

let n = 0
async function create(c: Ctx, extra: InvoiceFields = {}): Promise<string> {
  n += 1
  return api(c.t)
    .as(c.m)
    .newInvoice({ order_id: `WH-${n}`, amount: '100.10', currency: 'RUB', callback_url: c.rx.url, ...extra })
}

async function simulate(c: Ctx, id: string, outcome: 'paid' | 'hold' | 'failed'): Promise<void> {
  expectStatus(await api(c.t).simulate(id, { outcome }), 200)
}

async function capture(c: Ctx, id: string): Promise<void> {
  expectStatus(await api(c.t).as(c.m).capture(id), 200)
}

const info = async (c: Ctx, id: string) => {
  const res = await api(c.t).as(c.m).getInvoice(id)
  expectStatus(res, 200)
  // what webhooks carry: getInfo's 13 fields, without the extension view's refunded_amount (docs/refunds.md#the-invoice-view)
  const { refunded_amount: _refunded, ...invoice } = res.body
  return invoice
}

async function deliveriesOf(c: Ctx, invoiceId: string): Promise<Delivery[]> {
  const res = await api(c.t).as(c.m).listDeliveries({ invoice_id: invoiceId })
  expectStatus(res, 200)
  return res.body.data
}

/** Polls the delivery log until `done` holds (the receiver has answered before the attempt is recorded). */
async function logUntil(
  c: Ctx,
  invoiceId: string,
  done: (ds: Delivery[]) => boolean,
  timeoutMs = 5000,
): Promise<Delivery[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ds = await deliveriesOf(c, invoiceId)
    if (done(ds)) return ds
    if (Date.now() > deadline) throw new Error(`delivery log did not settle: ${JSON.stringify(ds)}`)
    await sleep(20)
  }
}

const typeAndAnswer = (h: ReceivedWebhook) => `${h.json.type}:${String(h.answer)}`

describe('webhook delivery (docs/webhooks.md#delivery)', () => {
  it('when an invoice is paid, then the receiver gets invoice.paid at once, signed, with the getInfo invoice of that moment', async () => {
    const c = await setup()
    const id = await create(c)
    const paidAt = performance.timeOrigin + performance.now()
    await simulate(c, id, 'paid')
    const [hook] = await c.rx.waitFor(1)
    // woken by the commit, not by the 1 s poll
    expect(hook!.receivedAt - paidAt).toBeLessThan(500)
    expect(hook!.verifiedWith).toEqual([c.m.webhookSecret])
    expect(hook!.headers['content-type']).toBe('application/json')
    expect(hook!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/)
    expect(Math.abs(Number(hook!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5)

    const [event] = await c.t.rt.store.events.listByInvoice(id as never)
    expect(hook!.headers['webhook-id']).toBe(event!.id)
    expect(Object.keys(hook!.json)).toEqual(['type', 'timestamp', 'data'])
    expect(hook!.json.type).toBe('invoice.paid')
    expect(hook!.json.timestamp).toBe(event!.createdAt.toISOString())
    expect(hook!.json.data).toEqual(await info(c, id))
    expect(hook!.json.data['status']).toBe('paid')

    const [d] = await logUntil(c, id, (ds) => ds[0]?.status === 'succeeded')
    expect(d).toMatchObject({ event_id: event!.id, type: 'invoice.paid', status: 'succeeded', next_attempt_at: null })
    expect(d!.attempts).toEqual([
      { at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null },
    ])
  })

  it('when an invoice has no callback_url, then no delivery is made', async () => {
    const c = await setup()
    const id = await create(c, { callback_url: undefined })
    await simulate(c, id, 'paid')
    await sleep(300)
    expect(c.rx.received).toHaveLength(0)
    expect(await deliveriesOf(c, id)).toEqual([])
  })

  it('when the receiver answers 503 and then a redirect, then it is retried on the schedule (redirects not followed) until a 2xx', async () => {
    const c = await setup()
    c.rx.respond = (_h, k) => (k === 1 ? 503 : k === 2 ? 302 : 200)
    const id = await create(c)
    await simulate(c, id, 'paid')
    const hooks = await c.rx.waitFor(3)
    // WEBHOOK_RETRY_SCHEDULE=0,0.2,0.2: 200 ms ±10 % after the end of each failed attempt
    for (let i = 1; i < 3; i += 1) expect(hooks[i]!.receivedAt - hooks[i - 1]!.receivedAt).toBeGreaterThanOrEqual(175)
    expect(new Set(hooks.map((h) => h.headers['webhook-id'])).size).toBe(1)
    expect(new Set(hooks.map((h) => h.body)).size).toBe(1)
    const [d] = await logUntil(c, id, (ds) => ds[0]?.status === 'succeeded')
    expect(d!.attempts.map((a) => [a.status_code, a.error])).toEqual([
      [503, 'HTTP 503'],
      [302, 'HTTP 302: redirects are not followed'],
      [200, null],
    ])
    await sleep(300)
    expect(c.rx.received).toHaveLength(3)
  })

  it('when the schedule delays the first attempt, then each webhook goes out when it comes due, not at the next poll after it', async () => {
    // WEBHOOK_RETRY_SCHEDULE=0.6: the first attempt 600 ms ±10 % after the event. Nothing of this process's own
    // attempts sets a timer for it (as for deliveries pending before a restart): the claim says when it comes due.
    const c = await setup({ WEBHOOK_RETRY_SCHEDULE: '0.6' })
    const ids = [await create(c), await create(c), await create(c)]
    const paidAt: number[] = []
    for (const id of ids) {
      paidAt.push(Date.now())
      await simulate(c, id, 'paid')
      await sleep(150)
    }
    const hooks = await c.rx.waitFor(3)
    const late = hooks.map((h) => {
      const i = ids.indexOf(JSON.parse(h.body).data.id)
      return h.receivedAt - paidAt[i]! - 600
    })
    // a poll (every second) would leave each up to a second late; the jitter allows 60 ms either way
    for (const ms of late) {
      expect(ms).toBeGreaterThanOrEqual(-80)
      expect(ms).toBeLessThan(300)
    }
  })

  it('when every attempt fails, then after the last entry of the schedule the delivery is failed, and the log says so', async () => {
    const lines: string[] = []
    const { pino } = await import('pino')
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(s) })
    const rx = await startReceiver({ respond: () => 500 })
    const t = await buildTestApp(BASE_ENV, { realClock: true, webhooks: true, logger })
    const m = await t.merchant()
    rx.secrets = [m.webhookSecret]
    const c = { t, m, rx }
    open.push(c)
    const id = await create(c)
    await simulate(c, id, 'paid')
    const [d] = await logUntil(c, id, (ds) => ds[0]?.status === 'failed')
    expect(d!.attempts.map((a) => a.status_code)).toEqual([500, 500, 500])
    expect(d!.next_attempt_at).toBeNull()
    await sleep(300)
    expect(rx.received).toHaveLength(3)
    const failed = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['delivery_id'] === d!.id && l['level'] === 40)
    expect(failed).toMatchObject({
      msg: 'webhook delivery failed: retry schedule exhausted',
      attempts: 3,
      status_code: 500,
      reason: 'exhausted',
    })
  })

  it('when the receiver answers 410 Gone, then the delivery fails at once without further attempts', async () => {
    const c = await setup()
    c.rx.respond = () => 410
    const id = await create(c)
    await simulate(c, id, 'paid')
    const [d] = await logUntil(c, id, (ds) => ds[0]?.status === 'failed')
    expect(d!.attempts).toHaveLength(1)
    expect(d!.attempts[0]).toMatchObject({
      status_code: 410,
      error: 'HTTP 410 Gone: the endpoint asked for no further attempts',
    })
    await sleep(600)
    expect(c.rx.received).toHaveLength(1)
  })

  it('when the receiver does not answer within WEBHOOK_TIMEOUT, then the attempt is a timeout and it is retried', async () => {
    const c = await setup({ WEBHOOK_TIMEOUT: '1' })
    c.rx.respond = (_h, k) => (k === 1 ? 'hang' : 200)
    const id = await create(c)
    await simulate(c, id, 'paid')
    const [d] = await logUntil(c, id, (ds) => ds[0]?.status === 'succeeded', 8000)
    expect(d!.attempts).toHaveLength(2)
    expect(d!.attempts[0]).toMatchObject({ status_code: null, error: 'timeout: no answer within 1 s' })
    expect(d!.attempts[0]!.latency_ms).toBeGreaterThanOrEqual(950)
    expect(d!.attempts[0]!.latency_ms).toBeLessThan(3000)
    expect(d!.attempts[1]).toMatchObject({ status_code: 200, error: null })
  })

  it('when the TLS handshake never completes, then the attempt ends within WEBHOOK_TIMEOUT too (connecting is part of it)', async () => {
    const c = await setup({ WEBHOOK_TIMEOUT: '1', WEBHOOK_RETRY_SCHEDULE: '0' })
    // accepts the connection and never speaks: the https handshake waits
    const silent = createTcpServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const id = await create(c, { callback_url: `https://127.0.0.1:${(silent.address() as AddressInfo).port}/hook` })
      await simulate(c, id, 'paid')
      const [d] = await logUntil(c, id, (ds) => ds[0]?.status === 'failed', 8000)
      expect(d!.attempts).toHaveLength(1)
      expect(d!.attempts[0]!.status_code).toBeNull()
      expect(d!.attempts[0]!.error).toMatch(
        /^(timeout: no answer within 1 s|connection timed out \(UND_ERR_CONNECT_TIMEOUT\))$/,
      )
      // a fixed 10 s connect timeout held the attempt (and its slot) for 10 s
      expect(d!.attempts[0]!.latency_ms).toBeLessThan(3000)
    } finally {
      silent.close()
    }
  })

  it('when the receiver refuses connections, then the attempt records the network error and is retried', async () => {
    const c = await setup()
    const gone = await startReceiver()
    const url = gone.url
    await gone.close() // nothing listens on that port any more
    const id = await create(c, { callback_url: url })
    await simulate(c, id, 'paid')
    const [d] = await logUntil(c, id, (ds) => ds[0]?.status === 'failed')
    expect(d!.attempts.map((a) => [a.status_code, a.error])).toEqual(
      Array(3).fill([null, 'connection refused (ECONNREFUSED)']),
    )
  })

  describe('per-invoice order', () => {
    it('when hold fails twice before it succeeds, then paid is sent only after hold succeeded; each carries its own snapshot', async () => {
      const c = await setup()
      let holdTries = 0
      c.rx.respond = (h) => (h.json.type === 'invoice.hold' && ++holdTries <= 2 ? 500 : 200)
      const id = await create(c)
      await simulate(c, id, 'hold')
      await capture(c, id) // paid is committed while hold is still failing
      await c.rx.waitFor(1, { where: (h) => h.json.type === 'invoice.paid' })
      await sleep(100)
      expect(c.rx.received.map(typeAndAnswer)).toEqual([
        'invoice.hold:500',
        'invoice.hold:500',
        'invoice.hold:200',
        'invoice.paid:200',
      ])
      const [hold, , , paid] = c.rx.received
      // the hold's body is what the invoice was at the hold, even on the attempt made after the capture
      expect(c.rx.received[2]!.body).toBe(hold!.body)
      expect(hold!.json.data).toMatchObject({ status: 'hold', paid_at: null, credited: null })
      expect(paid!.json.data).toEqual(await info(c, id))
      expect(paid!.headers['webhook-id']).not.toBe(hold!.headers['webhook-id'])
    })

    it('when hold is given up, then paid follows it; deliveries of one invoice are never sent out of order', async () => {
      const c = await setup()
      c.rx.respond = (h) => (h.json.type === 'invoice.hold' ? 500 : 200)
      const id = await create(c)
      await simulate(c, id, 'hold')
      await simulate(c, id, 'paid')
      await c.rx.waitFor(1, { where: (h) => h.json.type === 'invoice.paid' })
      expect(c.rx.received.map(typeAndAnswer)).toEqual([
        'invoice.hold:500',
        'invoice.hold:500',
        'invoice.hold:500',
        'invoice.paid:200',
      ])
      const ds = await logUntil(c, id, (d) => d.every((x) => x.status !== 'pending'))
      expect(ds.map((d) => [d.type, d.status])).toEqual([
        ['invoice.paid', 'succeeded'],
        ['invoice.hold', 'failed'],
      ])
    })

    it('when several invoices are paid at once, then their deliveries go out in parallel', async () => {
      const c = await setup()
      c.rx.respond = async () => {
        await sleep(300)
        return 200
      }
      const ids = await Promise.all([1, 2, 3, 4, 5].map(() => create(c)))
      await Promise.all(ids.map((id) => simulate(c, id, 'paid')))
      await c.rx.waitFor(5)
      // each answer takes 300 ms: one at a time, the receiver would never see two requests open at once
      expect(c.rx.maxConcurrent).toBeGreaterThanOrEqual(3)
      for (const id of ids) await logUntil(c, id, (ds) => ds[0]?.status === 'succeeded')
    })
  })

  describe('each merchant`s share of the delivery slots', () => {
    const SHARE_ENV = { WEBHOOK_CONCURRENCY: '8', WEBHOOK_MERCHANT_CONCURRENCY: '2', WEBHOOK_TIMEOUT: '3' }

    it('when merchants` endpoints never answer, then each one`s webhooks hold only a quarter of its share of the slots and another merchant`s go out at once', async () => {
      const c = await setup(SHARE_ENV)
      c.rx.respond = () => 'hang'
      // four merchants with 3 webhooks each to endpoints that hang: at their whole share (2) they would hold all 8 slots
      const hogs: Ctx[] = [
        c,
        ...(await Promise.all(
          [1, 2, 3].map(async (i) => ({ t: c.t, m: await c.t.merchant(`Hanging Shop ${i}`), rx: c.rx })),
        )),
      ]
      c.rx.secrets = hogs.map((h) => h.m.webhookSecret)
      const hogIds = await Promise.all(hogs.flatMap((h) => [1, 2, 3].map(async () => ({ h, id: await create(h) }))))
      await Promise.all(hogIds.map(({ h, id }) => simulate(h, id, 'paid')))
      await c.rx.waitFor(4)
      const rx = await startReceiver()
      try {
        const other: Ctx = { t: c.t, m: await c.t.merchant('Other Shop'), rx }
        rx.secrets = [other.m.webhookSecret]
        const id = await create(other)
        const paidAt = Date.now()
        await simulate(other, id, 'paid')
        // with every slot held by the hanging endpoints, it would wait for WEBHOOK_TIMEOUT (3 s)
        const [hook] = await rx.waitFor(1, { timeoutMs: 1500 })
        expect(hook!.json.type).toBe('invoice.paid')
        expect(Date.now() - paidAt).toBeLessThan(1500)
        expect(hook!.verifiedWith).toEqual([other.m.webhookSecret])
        // one each: none of them has answered here
        expect(c.rx.maxConcurrent).toBe(4)
        expect(c.rx.received).toHaveLength(4)
      } finally {
        await rx.close()
      }
    })

    it('when a merchant alone has many webhooks and its endpoint answers, then it uses the slots beyond its share but one share once it has answered', async () => {
      const c = await setup(SHARE_ENV)
      c.rx.respond = async () => {
        await sleep(300)
        return 200
      }
      const ids = await Promise.all(Array.from({ length: 16 }, () => create(c)))
      await Promise.all(ids.map((id) => simulate(c, id, 'paid')))
      await c.rx.waitFor(16, { timeoutMs: 5000 })
      // a quarter of its share (1) until an attempt succeeds, then 8 slots but a reserve of its share (2)
      expect(c.rx.maxConcurrent).toBe(6)
    })
  })

  it('when an invoice expires by the clock, then invoice.expired is delivered right after the sweep', async () => {
    const c = await setup()
    const id = await create(c, { lifetime: 1 })
    await sleep(1050)
    await c.t.sweep()
    const [hook] = await c.rx.waitFor(1, { timeoutMs: 500 })
    expect(hook!.json.type).toBe('invoice.expired')
    expect(hook!.json.data).toEqual(await info(c, id))
  })

  it('when a redelivery is asked while an attempt of it is under way, then that attempt is the redelivery: the webhook is not sent a second time beside it', async () => {
    const c = await setup()
    c.rx.respond = async () => {
      await sleep(1000)
      return 200
    }
    const id = await create(c)
    await simulate(c, id, 'paid')
    while (c.rx.received.length === 0) await sleep(5) // arrived; its answer takes 1 s
    const [d] = await deliveriesOf(c, id)
    expect(d).toMatchObject({ status: 'pending', attempts: [] })
    const retried = await api(c.t).as(c.m).retryDelivery(d!.id)
    expectStatus(retried, 202)
    expect(retried.body).toMatchObject({ id: d!.id, status: 'pending' })
    await logUntil(c, id, (ds) => ds[0]?.status === 'succeeded')
    await sleep(300)
    // requeued under the running attempt, it went out again at once, alongside
    expect(c.rx.maxConcurrent).toBe(1)
    expect(c.rx.received).toHaveLength(1)
  })

  it('when the COMMIT that records an attempt answers with an error after all, then the attempt is recorded once and later webhooks still go out', async () => {
    const c = await setup()
    const store = c.t.rt.store as { transaction: Store['transaction'] }
    const transaction = store.transaction.bind(c.t.rt.store)
    let commitAnswersWithError = false
    store.transaction = async (fn) => {
      const out = await transaction(fn)
      if (commitAnswersWithError) {
        commitAnswersWithError = false
        throw new StoreUnavailableError('simulated: the COMMIT was applied, its answer was lost')
      }
      return out
    }
    c.rx.respond = () => {
      commitAnswersWithError = true // the next transaction is the cycle that records this attempt
      return 200
    }
    const first = await create(c)
    await simulate(c, first, 'paid')
    await c.rx.waitFor(1)
    c.rx.respond = () => 200
    while (commitAnswersWithError) await sleep(5) // the recording cycle has run, and was told its COMMIT failed
    const second = await create(c)
    await simulate(c, second, 'paid')
    // re-recording the same attempt failed on its id in every later cycle, and no cycle claimed anything again
    const hooks = await c.rx.waitFor(2, { timeoutMs: 4000 })
    expect(hooks[1]!.json.data['id']).toBe(second)
    const [d] = await logUntil(c, first, (ds) => ds[0]?.status === 'succeeded')
    expect(d!.attempts).toHaveLength(1)
  })

  describe('webhook secret rotation (docs/webhooks.md#secret-rotation)', () => {
    it('when the secret is rotated, then webhooks carry both signatures and each verifies with its own secret', async () => {
      const c = await setup()
      const old = c.m.webhookSecret
      const { webhookSecret: fresh } = await rotateWebhookSecret(c.t.rt.deps, c.m.id)
      expect(fresh).not.toBe(old)
      c.rx.secrets = [old, fresh]
      const id = await create(c)
      await simulate(c, id, 'paid')
      const [hook] = await c.rx.waitFor(1)
      expect(hook!.answer).toBe(200)
      expect(hook!.verifiedWith).toEqual([old, fresh])
      const sigs = String(hook!.headers['webhook-signature']).split(' ')
      expect(sigs).toHaveLength(2)
      for (const s of sigs) expect(s).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/)
    })

    it('when the grace period has passed, then only the new secret signs', async () => {
      const c = await setup({ WEBHOOK_SECRET_GRACE: '1' })
      const old = c.m.webhookSecret
      const { webhookSecret: fresh } = await rotateWebhookSecret(c.t.rt.deps, c.m.id)
      c.rx.secrets = [old, fresh]
      await sleep(1100)
      const id = await create(c)
      await simulate(c, id, 'paid')
      const [hook] = await c.rx.waitFor(1)
      expect(hook!.verifiedWith).toEqual([fresh])
      expect(String(hook!.headers['webhook-signature']).split(' ')).toHaveLength(1)
    })
  })
})
