// @ts-check
/**
 * A one-product web shop that takes its payments through the invoice service, with @invoice-service/client:
 *
 *   1. "Buy now" creates an invoice for the order (createInvoice) and sends the buyer to its pay_url;
 *   2. the service POSTs a signed webhook to /webhooks/invoices when the invoice changes; the shop verifies it
 *      (verifyWebhook) and marks the order paid — a hold is captured (capture) and its paid event follows;
 *   3. the payment page sends the buyer back to the order page (success_url / fail_url), which shows the status and
 *      follows it while it can change; if no webhook has settled the order a while after it was placed, the shop
 *      asks the service itself (getInvoice) — the fallback for a webhook that is late or lost;
 *   4. a paid order can be refunded from its page (createRefund, with the order's own Idempotency-Key, so a double
 *      click is one refund); the refund.succeeded / refund.failed webhook tells how it ended.
 *
 * Orders live in memory: a demo, not a shop. Run it on its own against any service with
 * `INVOICE_SERVICE_URL=… INVOICE_API_KEY=… INVOICE_MERCHANT_ID=… INVOICE_WEBHOOK_SECRET=… node shop.js`,
 * or everything together from the repository root with `npm run demo`.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
import { createInvoiceClient, isInvoiceServiceError, verifyWebhook } from '@invoice-service/client'
import { errorPage, isFinal, orderPage, productPage } from './views.js'

/** @typedef {{ name: string, description: string, amount: string, currency: string }} Product */
/**
 * @typedef {object} Order
 * @property {string} id          the shop's order id, sent as the invoice's order_id
 * @property {Product} product
 * @property {string} invoiceId
 * @property {string} payUrl
 * @property {'awaiting_payment' | 'hold' | 'paid' | 'failed' | 'expired'} status
 * @property {'webhook' | 'polling' | undefined} confirmedBy  what moved it to its final status
 * @property {string | undefined} lastEvent                 the type and webhook-id of the last event applied
 * @property {number} createdAt
 * @property {number} lastPolledAt
 * @property {{ id: string, amount: string, status: string } | undefined} refund  the order's refund, once asked for
 */
/**
 * @typedef {object} ShopOptions
 * @property {string} serviceUrl       the invoice service (its PUBLIC_URL)
 * @property {string} apiKey
 * @property {string} merchantId
 * @property {string} webhookSecret    whsec_…
 * @property {number} [port]           default 3000; 0 picks a free one
 * @property {string} [host]           default 127.0.0.1
 * @property {string} [publicUrl]      how the buyer's browser and the service reach the shop; default http://{host}:{port}
 * @property {number} [pollFallbackSeconds]  ask the service after this long without a settling webhook; 0 never. Default 10
 * @property {Product} [product]
 * @property {(line: string) => void} [log]
 */

/** @type {Product} */
export const MUG = {
  name: 'Blue enamel mug',
  description: 'A 350 ml enamel mug in deep blue, for coffee by the campfire or at the desk.',
  amount: '1490.00',
  currency: 'RUB',
}

const ORDER_ID = /^DEMO-[0-9A-Z]{4,40}$/
const MAX_WEBHOOK_BODY = 64 * 1024

const newOrderId = () => `DEMO-${Date.now().toString(36).toUpperCase()}${randomBytes(3).toString('hex').toUpperCase()}`

/** Invoice status → order status. @param {string} status @returns {Order['status']} */
const orderStatusOf = (status) =>
  status === 'paid' || status === 'failed' || status === 'expired' || status === 'hold' ? status : 'awaiting_payment'

/**
 * Starts the shop; resolves once it listens.
 * @param {ShopOptions} options
 */
export async function startShop(options) {
  const host = options.host ?? '127.0.0.1'
  const product = options.product ?? MUG
  const pollFallbackMs = (options.pollFallbackSeconds ?? 10) * 1000
  const log = options.log ?? ((line) => console.log(`[shop] ${line}`))
  const invoices = createInvoiceClient({
    baseUrl: options.serviceUrl,
    apiKey: options.apiKey,
    merchantId: options.merchantId,
  })
  /** @type {Map<string, Order>} */
  const orders = new Map()
  /** webhook-ids already handled: the service delivers at least once, so the same event can come again */
  const seen = new Set()
  let publicUrl = options.publicUrl ?? ''

  /** Creates (or, for a repeated order id, finds again) the order's invoice. @param {string} orderId */
  async function placeOrder(orderId) {
    const existing = orders.get(orderId)
    if (existing !== undefined) return existing
    const back = `${publicUrl}/orders/${encodeURIComponent(orderId)}`
    const created = await invoices.createInvoice({
      order_id: orderId,
      amount: product.amount,
      currency: product.currency,
      comment: product.name,
      callback_url: `${publicUrl}/webhooks/invoices`,
      success_url: back,
      fail_url: back,
    })
    /** @type {Order} */
    const order = {
      id: orderId,
      product,
      invoiceId: created.order_id, // the create answer's order_id is the invoice id
      payUrl: created.pay_url,
      status: 'awaiting_payment',
      confirmedBy: undefined,
      lastEvent: undefined,
      createdAt: Date.now(),
      lastPolledAt: Date.now(),
      refund: undefined,
    }
    orders.set(orderId, order)
    log(`order ${orderId}: invoice ${order.invoiceId} ${created.is_new ? 'created' : 'found again (same order_id)'}`)
    return order
  }

  /**
   * Applies an invoice status to its order. Final statuses never change again, so a late or repeated event cannot
   * undo a payment. @param {Order} order @param {string} status @param {'webhook' | 'polling'} via
   */
  function apply(order, status, via) {
    if (isFinal(order)) return
    const next = orderStatusOf(status)
    if (next === order.status) return
    order.status = next
    if (isFinal(order)) order.confirmedBy = via
    log(`order ${order.id}: ${next} (by ${via})`)
    if (next === 'hold') {
      // The buyer's money is held: capture it. Its invoice.paid webhook completes the order.
      invoices.capture(order.invoiceId).catch((err) => log(`order ${order.id}: capture failed: ${String(err)}`))
    }
  }

  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
  async function onWebhook(req, res) {
    const body = await readBody(req, MAX_WEBHOOK_BODY)
    let event
    try {
      // the raw body, before any parsing: that is what was signed
      event = verifyWebhook(body, req.headers, options.webhookSecret)
    } catch (err) {
      log(`webhook refused: ${err instanceof Error ? err.message : String(err)}`)
      return send(res, 401, 'text/plain', 'invalid signature')
    }
    const webhookId = String(req.headers['webhook-id'])
    if (seen.has(webhookId)) return send(res, 204)
    seen.add(webhookId)
    if (event.type === 'webhook.test') {
      log(`test webhook ${webhookId} received`)
      return send(res, 204)
    }
    const order = orders.get(event.data.order_id)
    if (event.type === 'refund.succeeded' || event.type === 'refund.failed') {
      // the invoice stays paid; the refund's own status is what changed
      if (order?.refund !== undefined && order.refund.id === event.data.refund.id) {
        order.refund.status = event.data.refund.status
        log(`order ${order.id}: refund ${event.data.refund.status} (by webhook)`)
      }
      return send(res, 204)
    }
    // an event of an invoice this shop does not know (another shop on the same merchant, or a restart): accept it
    if (order !== undefined && order.invoiceId === event.data.id) {
      order.lastEvent = `${event.type}, webhook-id ${webhookId}`
      apply(order, event.data.status, 'webhook')
    }
    return send(res, 204)
  }

  /** The order page's status feed; asks the service when no webhook has settled the order for a while. @param {Order} order */
  async function currentStatus(order) {
    const now = Date.now()
    if (
      !isFinal(order) &&
      pollFallbackMs > 0 &&
      now - order.createdAt >= pollFallbackMs &&
      now - order.lastPolledAt >= pollFallbackMs
    ) {
      order.lastPolledAt = now
      try {
        const invoice = await invoices.getInvoice({ order_id: order.id })
        if (invoice.id === order.invoiceId) apply(order, invoice.status, 'polling')
      } catch (err) {
        log(`order ${order.id}: polling the service failed: ${String(err)}`)
      }
    }
    return order.status
  }

  /**
   * Refunds a paid order in full. The Idempotency-Key is the order's own, so pressing the button twice, or a retry
   * after a lost answer, is the same refund. @param {Order} order
   */
  async function refundOrder(order) {
    const refund = await invoices.createRefund(
      order.invoiceId,
      { reason: 'returned to the demo shop' },
      { idempotencyKey: `refund-${order.id}` },
    )
    // its webhook may have come first (a final status): the answer never takes it back to pending
    if (order.refund?.id !== refund.id || refund.status !== 'pending')
      order.refund = { id: refund.id, amount: refund.amount, status: refund.status }
    log(`order ${order.id}: refund ${refund.id} of ${refund.amount} ${refund.currency}: ${refund.status}`)
  }

  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
  async function route(req, res) {
    const url = new URL(req.url ?? '/', 'http://shop.invalid')
    const orderPath = /^\/orders\/([^/]+)(\/status)?$/.exec(url.pathname)
    const refundPath = /^\/orders\/([^/]+)\/refund$/.exec(url.pathname)
    if (req.method === 'POST' && refundPath !== null) {
      const order = orders.get(decodeURIComponent(refundPath[1] ?? ''))
      if (order === undefined) return send(res, 404, 'text/html', errorPage(404, 'No such order.'))
      if (order.status !== 'paid')
        return send(res, 409, 'text/html', errorPage(409, 'Only a paid order can be refunded.'))
      try {
        await refundOrder(order)
      } catch (err) {
        const why = isInvoiceServiceError(err) ? `${err.code}: ${err.detail}` : String(err)
        log(`order ${order.id}: refund refused: ${why}`)
        return send(res, 502, 'text/html', errorPage(502, 'The refund could not be made. Please try again.'))
      }
      return redirect(res, `/orders/${encodeURIComponent(order.id)}`)
    }
    if (req.method === 'GET' && url.pathname === '/') {
      return send(res, 200, 'text/html', productPage(product, newOrderId()))
    }
    if (req.method === 'POST' && url.pathname === '/orders') {
      const form = new URLSearchParams(await readBody(req, 4096))
      const orderId = form.get('order_id') ?? ''
      if (!ORDER_ID.test(orderId))
        return send(res, 400, 'text/html', errorPage(400, 'That is not an order of this shop.'))
      try {
        const order = await placeOrder(orderId)
        return redirect(res, isFinal(order) ? `/orders/${encodeURIComponent(order.id)}` : order.payUrl)
      } catch (err) {
        // InvoiceServiceError carries the API's problem code; a shop would map the ones it expects.
        const why = isInvoiceServiceError(err) ? `${err.code}: ${err.detail}` : String(err)
        log(`order ${orderId}: invoice not created: ${why}`)
        return send(
          res,
          502,
          'text/html',
          productPage(product, newOrderId(), 'The payment service could not be reached. Please try again.'),
        )
      }
    }
    if (req.method === 'POST' && url.pathname === '/webhooks/invoices') return onWebhook(req, res)
    if (req.method === 'GET' && orderPath !== null) {
      const order = orders.get(decodeURIComponent(orderPath[1] ?? ''))
      if (order === undefined) return send(res, 404, 'text/html', errorPage(404, 'No such order.'))
      if (orderPath[2] !== undefined)
        return send(
          res,
          200,
          'application/json',
          JSON.stringify({ status: await currentStatus(order), refund: order.refund?.status ?? null }),
        )
      await currentStatus(order)
      return send(res, 200, 'text/html', orderPage(order))
    }
    return send(res, 404, 'text/html', errorPage(404, 'Not found.'))
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err) => {
      log(`error: ${err instanceof Error ? err.stack : String(err)}`)
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error')
    })
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject) // EADDRINUSE and the like: the caller's to report, not an uncaught exception
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', reject)
      resolve(undefined)
    })
  })
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  if (publicUrl === '') publicUrl = `http://${host}:${address.port}`
  return {
    url: publicUrl,
    orders,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve(undefined))
      }),
  }
}

/** @param {import('node:http').IncomingMessage} req @param {number} limit @returns {Promise<string>} */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = []
    let size = 0
    req.on('data', (/** @type {Buffer} */ chunk) => {
      size += chunk.length
      if (size > limit) {
        reject(new Error('body too large'))
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {string} [type] @param {string} [body] */
function send(res, status, type, body) {
  res.writeHead(status, {
    ...(type !== undefined && { 'content-type': `${type}; charset=utf-8` }),
    'cache-control': 'no-store',
  })
  res.end(body)
}

/** @param {import('node:http').ServerResponse} res @param {string} location */
function redirect(res, location) {
  res.writeHead(303, { location, 'cache-control': 'no-store' })
  res.end()
}

// `node shop.js`: the shop on its own, configured from the environment.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const need = (/** @type {string} */ name) => {
    const value = process.env[name]
    if (value === undefined || value === '') {
      console.error(`demo-shop: set ${name}`)
      process.exit(78)
    }
    return value
  }
  const port = Number(process.env['SHOP_PORT'] ?? 3000)
  const shop = await startShop({
    serviceUrl: need('INVOICE_SERVICE_URL'),
    apiKey: need('INVOICE_API_KEY'),
    merchantId: need('INVOICE_MERCHANT_ID'),
    webhookSecret: need('INVOICE_WEBHOOK_SECRET'),
    port,
    ...(process.env['SHOP_PUBLIC_URL'] !== undefined && { publicUrl: process.env['SHOP_PUBLIC_URL'] }),
    ...(process.env['SHOP_POLL_FALLBACK_SECONDS'] !== undefined && {
      pollFallbackSeconds: Number(process.env['SHOP_POLL_FALLBACK_SECONDS']),
    }),
  }).catch((/** @type {NodeJS.ErrnoException} */ err) => {
    if (err.code !== 'EADDRINUSE') throw err
    console.error(`demo-shop: port ${port} is taken; set SHOP_PORT to another port`)
    process.exit(1)
  })
  console.log(`Demo shop: ${shop.url}`)
}
