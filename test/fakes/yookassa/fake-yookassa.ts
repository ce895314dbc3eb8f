/**
 * A stateful fake of YooKassa's REST API v3 (https://yookassa.ru/developers/api): a real HTTP server on 127.0.0.1
 * that speaks its requests and answers (ledger.ts keeps the state), serves a hosted confirmation page
 * (checkout-page.ts), and POSTs notifications the way YooKassa does
 * (https://yookassa.ru/developers/using-api/webhooks: `{type: 'notification', event, object}`, unsigned, JSON).
 *
 * - Basic auth with the shop id and secret key; anything else is 401 `invalid_credentials`.
 * - `Idempotence-Key` is required on every POST and honoured: the same key and request get the first answer again,
 *   the same key with another request is refused (https://yookassa.ru/developers/using-api/interaction-format#idempotence;
 *   YooKassa keeps a key 24 hours, the fake for its lifetime).
 * - Errors as YooKassa words them: `{type: 'error', id, code, description, parameter}`.
 * - A notification is sent once (YooKassa retries for 24 hours until a 200; here a test drives loss and repeats
 *   through dropNotifications / replayNotifications instead).
 *
 * `FakePayment.amount` and `refunded` are in the currency's minor units (kopecks for RUB): YooKassa's own decimal
 * strings ("10.50") are major units, kept here as exact integers.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BuyerAction, FakeAcquirer, FakePayment } from '../acquirer.js'
import { CHECKOUT_PATH, checkoutPage } from './checkout-page.js'
import { ApiError } from './api-error.js'
import { Ledger, type Notice } from './ledger.js'

export interface FakeYooKassa extends FakeAcquirer {
  readonly shopId: string
  readonly secretKey: string
  /** Every notification body the fake tried to deliver, in order (replays included). */
  readonly deliveries: readonly { readonly event: string; readonly body: string; readonly status: number | 'failed' }[]
}

export interface FakeYooKassaOptions {
  readonly shopId?: string
  readonly secretKey?: string
}

interface Stored {
  readonly fingerprint: string
  readonly status: number
  readonly json: unknown
}

export async function startFakeYooKassa(options: FakeYooKassaOptions = {}): Promise<FakeYooKassa> {
  const shopId = options.shopId ?? '100500'
  const secretKey = options.secretKey ?? `test_${randomUUID().replace(/-/g, '')}`
  const expectedAuth = `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString('base64')}`
  let origin = ''
  const ledger = new Ledger(shopId, (id) => `${origin}${CHECKOUT_PATH}?orderId=${encodeURIComponent(id)}`)
  const idempotency = new Map<string, Stored>()
  const hanging = new Set<ServerResponse>()
  let createdCount = 0
  let down: 'error' | 'hang' | false = false
  let refuseRefund = false

  // notifications: one chain, so they leave in the order their changes happened
  let notificationUrl: string | undefined
  let dropCount = 0
  let paused = false
  let notifyFirst = false
  let queued: Notice[] = []
  const sent: Notice[] = []
  const deliveries: { event: string; body: string; status: number | 'failed' }[] = []
  let chain: Promise<void> = Promise.resolve()

  async function post(notice: Notice): Promise<void> {
    if (notificationUrl === undefined) return
    const body = JSON.stringify({ type: 'notification', event: notice.event, object: notice.object })
    let status: number | 'failed' = 'failed'
    try {
      const res = await fetch(notificationUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(10_000),
      })
      await res.arrayBuffer()
      status = res.status
    } catch {
      // lost on the way: YooKassa would retry; a test replays instead
    }
    deliveries.push({ event: notice.event, body, status })
  }

  function notify(notices: readonly Notice[]): Promise<void> {
    chain = chain.then(async () => {
      for (const notice of notices) {
        if (notificationUrl === undefined) continue
        if (dropCount > 0) {
          dropCount -= 1
          continue
        }
        if (paused) {
          queued.push(notice)
          continue
        }
        await post(notice)
        sent.push(notice)
      }
    })
    return chain
  }

  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' })
    res.end(JSON.stringify(body))
  }

  /** The API proper: returns the answer and the notifications the change causes. */
  function route(method: string, path: string, body: unknown): { status: number; json: unknown; notices: Notice[] } {
    const parts = path.split('/').filter((p) => p !== '') // ['v3', 'payments', id, action]
    const id = decodeURIComponent(parts[2] ?? '')
    if (method === 'POST' && path === '/v3/payments') {
      const payment = ledger.create(body)
      createdCount += 1
      return { status: 200, json: ledger.paymentJson(payment), notices: [] }
    }
    if (parts[1] === 'payments' && parts.length === 3 && method === 'GET')
      return { status: 200, json: ledger.paymentJson(ledger.get(id)), notices: [] }
    if (parts[1] === 'payments' && parts.length === 4 && method === 'POST' && parts[3] === 'capture') {
      const notices = ledger.capture(id, body)
      return { status: 200, json: ledger.paymentJson(ledger.get(id)), notices }
    }
    if (parts[1] === 'payments' && parts.length === 4 && method === 'POST' && parts[3] === 'cancel') {
      const notices = ledger.cancel(id)
      return { status: 200, json: ledger.paymentJson(ledger.get(id)), notices }
    }
    if (method === 'POST' && path === '/v3/refunds') {
      if (refuseRefund) {
        refuseRefund = false
        throw new ApiError(400, 'invalid_request', 'The refund is not possible for this payment')
      }
      const { refund, notices } = ledger.refund(body)
      return { status: 200, json: ledger.refundJson(refund), notices }
    }
    if (parts[1] === 'refunds' && parts.length === 3 && method === 'GET') {
      const refund = ledger.refunds.get(id)
      if (refund === undefined) throw new ApiError(404, 'not_found', 'Refund not found')
      return { status: 200, json: ledger.refundJson(refund), notices: [] }
    }
    throw new ApiError(404, 'not_found', 'Not found')
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, raw: string): Promise<void> {
    if (down === 'hang') {
      hanging.add(res)
      return
    }
    if (down === 'error')
      return json(res, 503, new ApiError(503, 'internal_server_error', 'Service unavailable').json())
    if (req.headers.authorization !== expectedAuth)
      return json(
        res,
        401,
        new ApiError(401, 'invalid_credentials', 'Authentication by given credentials failed').json(),
      )
    const method = req.method ?? 'GET'
    let body: unknown
    if (raw !== '') {
      try {
        body = JSON.parse(raw) as unknown
      } catch {
        return json(res, 400, new ApiError(400, 'invalid_request', 'The request body is not JSON').json())
      }
    }
    const key = req.headers['idempotence-key']
    const fingerprint = `${method} ${path} ${raw}`
    if (method === 'POST') {
      if (typeof key !== 'string' || key === '' || key.length > 64)
        return json(
          res,
          400,
          new ApiError(400, 'invalid_request', 'Idempotence key is required', 'Idempotence-Key').json(),
        )
      const stored = idempotency.get(key)
      if (stored !== undefined) {
        if (stored.fingerprint !== fingerprint)
          return json(
            res,
            400,
            new ApiError(400, 'invalid_request', 'Idempotence key duplicated', 'Idempotence-Key').json(),
          )
        return json(res, stored.status, stored.json)
      }
    }
    let answer: { status: number; json: unknown; notices: Notice[] }
    try {
      answer = route(method, path, body)
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      answer = { status: err.status, json: err.json(), notices: [] }
    }
    if (method === 'POST' && typeof key === 'string')
      idempotency.set(key, { fingerprint, status: answer.status, json: answer.json })
    // only a change's own answer waits: the receiver may ask the API again before it answers the notification
    if (notifyFirst && answer.notices.length > 0) await notify(answer.notices)
    else void notify(answer.notices)
    json(res, answer.status, answer.json)
  }

  async function act(paymentId: string, action: BuyerAction): Promise<void> {
    const notices = action === 'pay' ? ledger.pay(paymentId) : ledger.decline(paymentId)
    await notify(notices)
  }

  async function checkout(req: IncomingMessage, res: ServerResponse, url: URL, raw: string): Promise<void> {
    const payment = ledger.payments.get(url.searchParams.get('orderId') ?? '')
    if (payment === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such payment')
      return
    }
    if (req.method === 'POST') {
      const action = new URLSearchParams(raw).get('action')
      if ((action === 'pay' || action === 'decline') && payment.status === 'pending') await act(payment.id, action)
      res.writeHead(303, { location: payment.returnUrl }).end()
      return
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(checkoutPage(payment))
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const url = new URL(req.url ?? '/', origin)
      const handled =
        url.pathname === CHECKOUT_PATH
          ? checkout(req, res, url, raw)
          : url.pathname.startsWith('/v3/')
            ? Promise.resolve(api(req, res, url.pathname, raw))
            : Promise.resolve(json(res, 404, new ApiError(404, 'not_found', 'Not found').json()))
      handled.catch(() => {
        if (!res.headersSent) res.writeHead(500)
        res.end()
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const mustBe = async (fn: () => Notice[]): Promise<void> => {
    await notify(fn())
  }

  return {
    apiUrl: `${origin}/v3`,
    shopId,
    secretKey,
    deliveries,
    get createdCount() {
      return createdCount
    },
    setNotificationUrl(url) {
      notificationUrl = url
    },
    buyer: (checkoutId, action) => act(checkoutId, action),
    expireCheckout: (checkoutId) => mustBe(() => ledger.expire(checkoutId)),
    lapseHold: (paymentId) => mustBe(() => ledger.lapse(paymentId)),
    dropNotifications(n) {
      dropCount = n
    },
    notifyBeforeAnswering(on) {
      notifyFirst = on
    },
    queuedNotifications: () => queued.length,
    pauseNotifications() {
      paused = true
    },
    async releaseNotifications(order) {
      const batch = queued
      queued = []
      paused = false
      const picked = order === undefined ? batch : order.map((i) => batch[i]).filter((n) => n !== undefined)
      chain = chain.then(async () => {
        for (const notice of picked) {
          await post(notice)
          sent.push(notice)
        }
      })
      await chain
    },
    async replayNotifications() {
      const again = [...sent]
      chain = chain.then(async () => {
        for (const notice of again) await post(notice)
      })
      await chain
    },
    refuseNextRefund() {
      refuseRefund = true
    },
    setDown(mode) {
      down = mode
    },
    payments: (): FakePayment[] =>
      [...ledger.payments.values()].map((p) => ({
        id: p.id,
        checkoutId: p.id,
        status: p.status,
        amount: p.amount,
        currency: p.currency,
        refunded: p.refunded,
        metadata: p.metadata,
      })),
    async close() {
      for (const res of hanging) res.destroy()
      hanging.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
