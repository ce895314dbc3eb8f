/**
 * A stateful fake of Stripe's API (test/fakes/acquirer.ts's `FakeAcquirer`): a real HTTP server on 127.0.0.1 that the
 * official `stripe` SDK talks to through its `host`/`port`/`protocol` options, keeping Checkout Sessions,
 * PaymentIntents and Refunds as Stripe does, serving a tiny hosted checkout page, and POSTing signed events to the
 * notification URL. Shapes follow Stripe's API reference:
 * - Checkout Session create and object: https://docs.stripe.com/api/checkout/sessions/create,
 *   https://docs.stripe.com/api/checkout/sessions/object, expire: https://docs.stripe.com/api/checkout/sessions/expire
 * - PaymentIntent object: https://docs.stripe.com/api/payment_intents/object; capture:
 *   https://docs.stripe.com/api/payment_intents/capture; cancel: https://docs.stripe.com/api/payment_intents/cancel
 * - Refunds: https://docs.stripe.com/api/refunds/create, https://docs.stripe.com/api/refunds/object
 * - errors: https://docs.stripe.com/api/errors; idempotency: https://docs.stripe.com/api/idempotent_requests;
 *   authentication: https://docs.stripe.com/api/authentication; expanding: https://docs.stripe.com/api/expanding_objects
 * - events and their signatures: https://docs.stripe.com/api/events/object,
 *   https://docs.stripe.com/webhooks#verify-manually — the `Stripe-Signature` header is computed here by hand
 *   (HMAC-SHA256 of `${t}.${payload}` with the endpoint's secret), not with the SDK, so the adapter's verification
 *   is tested against an independent signer.
 *
 * Since API version 2022-08-01 a Checkout Session in `payment` mode has no PaymentIntent until the buyer confirms:
 * here one is created at the first Pay or Decline on the hosted page (or through `buyer`). The endpoint is subscribed
 * to `payment_intent.*` and `checkout.session.*` events; a buyer's Pay sends the PaymentIntent's event
 * (`payment_intent.amount_capturable_updated` for a hold, else `payment_intent.succeeded`) and then
 * `checkout.session.completed`.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BuyerAction, FakeAcquirer, FakePayment } from '../acquirer.js'
import { canonical, FormError, parseStripeForm, type FormObject, type FormValue } from './form.js'

/**
 * A `Stripe-Signature` header as Stripe computes it (https://docs.stripe.com/webhooks#verify-manually): HMAC-SHA256
 * of `{t}.{payload}` with the endpoint's secret, by hand, so the SDK's own verification is tested independently.
 */
export function stripeSignature(secret: string, payload: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${payload}`, 'utf8').digest('hex')}`
}

export interface FakeStripeOptions {
  readonly secretKey?: string
  readonly webhookSecret?: string
  /** The fake's clock (created, expires_at checks, signature timestamps); default: the real one. */
  readonly now?: () => Date
}

/** One POST of an event to the notification URL. */
export interface FakeStripeDelivery {
  readonly eventId: string
  readonly type: string
  /** The receiver's status code, or the network error's message. */
  readonly outcome: number | string
}

export interface FakeStripe extends FakeAcquirer {
  readonly secretKey: string
  readonly webhookSecret: string
  /** The Checkout Sessions as Stripe would return them (payment_intent unexpanded). */
  sessions(): readonly Record<string, unknown>[]
  /** Every event created so far (delivered, dropped or queued), oldest first. */
  events(): readonly Record<string, unknown>[]
  readonly deliveries: readonly FakeStripeDelivery[]
  /** Resolves when every event so far was delivered (API calls answer before their events are sent). */
  settled(): Promise<void>
  /** Every API request: method, path (without the query) and its Idempotency-Key. */
  readonly requests: readonly { method: string; path: string; idempotencyKey: string | undefined }[]
  /** The Refunds as Stripe would return them, oldest first. */
  refunds(): readonly Record<string, unknown>[]
  /**
   * Stripe fails a refund after it succeeded, as it does when the buyer's card account was closed
   * (https://docs.stripe.com/refunds, "failed refunds"): the Refund's status becomes `failed` with its
   * `failure_reason` (https://docs.stripe.com/api/refunds/object#refund_object-failure_reason), the money goes back
   * to the balance (the charge no longer counts it refunded), and it sends `refund.updated` and `refund.failed` with
   * the Refund. Resolves after they were sent (or dropped, or queued while paused).
   */
  failRefund(refundId: string, reason?: 'expired_or_canceled_card' | 'lost_or_stolen_card' | 'unknown'): Promise<void>
}

/** The version events are stamped with when no request said (the SDK sends its own in `Stripe-Version`). */
const DEFAULT_API_VERSION = '2026-10-28.endive'

type Json = Record<string, unknown>

interface Session {
  readonly object: Json & { id: string; status: string; payment_intent: string | null }
  readonly amount: number
  readonly currency: string
  readonly captureMethod: 'automatic' | 'manual'
  readonly piMetadata: Record<string, string>
  readonly successUrl: string | null
  readonly cancelUrl: string | null
}

interface Intent {
  readonly object: Json & {
    id: string
    status: string
    amount: number
    amount_capturable: number
    amount_received: number
    currency: string
    metadata: Record<string, string>
  }
  readonly sessionId: string
  refunded: number
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; code?: string; param?: string; message: string },
  ) {
    super(body.message)
  }
}

const invalid = (message: string, extra: { code?: string; param?: string } = {}): ApiError =>
  new ApiError(400, { type: 'invalid_request_error', ...extra, message })

const missing = (kind: string, id: string, param = 'id'): ApiError =>
  new ApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    param,
    message: `No such ${kind}: '${id}'`,
  })

function randomId(prefix: string, length = 24): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  const bytes = randomBytes(length)
  let s = ''
  for (const b of bytes) s += alphabet[b % alphabet.length]
  return prefix + s
}

/** Stripe's way of showing a key it refuses: the prefix and the last four characters. */
function maskKey(key: string): string {
  const m = /^([a-z]{2}_(?:live|test)_)(.*)$/.exec(key)
  if (m === null) return `${'*'.repeat(Math.max(0, key.length - 4))}${key.slice(-4)}`
  const rest = m[2] ?? ''
  return `${m[1]}${'*'.repeat(Math.max(0, rest.length - 4))}${rest.slice(-4)}`
}

const str = (v: FormValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined)
const obj = (v: FormValue | undefined): FormObject | undefined =>
  v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : undefined
const list = (v: FormValue | undefined): FormValue[] | undefined =>
  Array.isArray(v) ? v : obj(v) !== undefined ? Object.values(obj(v) ?? {}) : undefined

function stringMap(v: FormValue | undefined, param: string): Record<string, string> {
  const o = obj(v)
  if (v !== undefined && v !== '' && o === undefined) throw invalid(`Invalid object`, { param })
  const out: Record<string, string> = {}
  for (const [k, value] of Object.entries(o ?? {})) {
    if (typeof value !== 'string') throw invalid(`Invalid value for ${param}[${k}]`, { param: `${param}[${k}]` })
    if (k.length > 40) throw invalid('Metadata keys can be up to 40 characters long.', { param })
    if (value.length > 500) throw invalid('Metadata values can be up to 500 characters long.', { param })
    out[k] = value
  }
  return out
}

function integer(v: FormValue | undefined, param: string): number | undefined {
  if (v === undefined) return undefined
  if (typeof v !== 'string' || !/^[0-9]+$/.test(v)) throw invalid(`Invalid integer: ${String(v)}`, { param })
  return Number(v)
}

export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? `sk_test_${randomId('', 32)}`
  const webhookSecret = options.webhookSecret ?? `whsec_${randomId('', 32)}`
  const now = options.now ?? (() => new Date())
  const nowSeconds = (): number => Math.floor(now().getTime() / 1000)

  const sessions = new Map<string, Session>()
  const intents = new Map<string, Intent>()
  const refunds = new Map<string, Json>()
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>()
  const requests: { method: string; path: string; idempotencyKey: string | undefined }[] = []
  const allEvents: Json[] = []
  const deliveries: FakeStripeDelivery[] = []
  const sent: { id: string; type: string; payload: string }[] = []
  let queue: { id: string; type: string; payload: string }[] = []
  let notificationUrl: string | undefined
  let toDrop = 0
  let paused = false
  let down: 'error' | 'hang' | false = false
  let refuseRefund = false
  let createdCount = 0
  let apiVersion = DEFAULT_API_VERSION
  const hanging = new Set<ServerResponse>()

  // --- notifications -------------------------------------------------------------------------------------------

  const signatureHeader = (payload: string): string => stripeSignature(webhookSecret, payload, nowSeconds())

  async function deliver(n: { id: string; type: string; payload: string }, replay: boolean): Promise<void> {
    const url = notificationUrl
    if (url === undefined) return
    if (!replay) sent.push(n)
    let outcome: number | string
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signatureHeader(n.payload),
        },
        body: n.payload,
        signal: AbortSignal.timeout(10_000),
      })
      await res.arrayBuffer()
      outcome = res.status
    } catch (error) {
      outcome = error instanceof Error ? error.message : String(error)
    }
    deliveries.push({ eventId: n.id, type: n.type, outcome })
  }

  /** Deliveries run one after another, in the order the events happened; API answers never wait for them. */
  let chain: Promise<void> = Promise.resolve()
  const enqueue = (n: { id: string; type: string; payload: string }, replay = false): Promise<void> =>
    (chain = chain.then(() => deliver(n, replay)))

  /**
   * Creates an event about `object` (a snapshot, as Stripe sends) and sends, drops or queues it. Like Stripe, the
   * API request that caused it is answered without waiting for the delivery (a receiver that takes a lock the
   * caller holds cannot deadlock the call); `settled()` waits for it.
   */
  let notifyFirst = false
  function emit(type: string, object: Json): void {
    const event = {
      id: randomId('evt_'),
      object: 'event',
      api_version: apiVersion,
      created: nowSeconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    }
    allEvents.push(event)
    const n = { id: event.id, type, payload: JSON.stringify(event, null, 2) }
    if (toDrop > 0) {
      toDrop -= 1
      return
    }
    if (paused) {
      queue.push(n)
      return
    }
    void enqueue(n)
  }

  // --- state changes ---------------------------------------------------------------------------------------------

  function sessionOf(id: string): Session {
    const s = sessions.get(id)
    if (s === undefined) throw missing('checkout.session', id)
    return s
  }

  function intentOf(id: string): Intent {
    const pi = intents.get(id)
    if (pi === undefined) throw missing('payment_intent', id, 'intent')
    return pi
  }

  function createIntent(session: Session): Intent {
    const id = randomId('pi_')
    const intent: Intent = {
      sessionId: session.object.id,
      refunded: 0,
      object: {
        id,
        object: 'payment_intent',
        amount: session.amount,
        amount_capturable: 0,
        amount_received: 0,
        canceled_at: null,
        cancellation_reason: null,
        capture_method: session.captureMethod,
        client_secret: `${id}_secret_${randomId('', 16)}`,
        confirmation_method: 'automatic',
        created: nowSeconds(),
        currency: session.currency,
        description: null,
        last_payment_error: null,
        latest_charge: null,
        livemode: false,
        metadata: { ...session.piMetadata },
        payment_method: null,
        payment_method_types: ['card'],
        status: 'requires_payment_method',
      },
    }
    intents.set(id, intent)
    session.object.payment_intent = id
    return intent
  }

  function act(checkoutId: string, action: BuyerAction): void {
    const session = sessionOf(checkoutId)
    if (session.object.status !== 'open')
      throw invalid(`This Checkout Session is no longer active (its status is ${session.object.status}).`)
    const existing = session.object.payment_intent
    const intent = existing === null ? createIntent(session) : intentOf(existing)
    const pi = intent.object
    pi['payment_method'] = randomId('pm_')
    if (action === 'decline') {
      pi.status = 'requires_payment_method'
      pi['last_payment_error'] = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      }
      emit('payment_intent.payment_failed', pi)
      return
    }
    pi['last_payment_error'] = null
    pi['latest_charge'] = randomId('ch_')
    if (session.captureMethod === 'manual') {
      pi.status = 'requires_capture'
      pi.amount_capturable = pi.amount
    } else {
      pi.status = 'succeeded'
      pi.amount_received = pi.amount
    }
    session.object.status = 'complete'
    session.object['payment_status'] = session.captureMethod === 'manual' ? 'unpaid' : 'paid'
    emit(
      session.captureMethod === 'manual' ? 'payment_intent.amount_capturable_updated' : 'payment_intent.succeeded',
      pi,
    )
    emit('checkout.session.completed', session.object)
  }

  async function buyer(checkoutId: string, action: BuyerAction): Promise<void> {
    act(checkoutId, action)
    await chain
  }

  function expire(session: Session): void {
    if (session.object.status !== 'open')
      throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired.`, {
        code: 'checkout_session_not_open',
      })
    session.object.status = 'expired'
    session.object['url'] = null
    const piId = session.object.payment_intent
    // An expiring session cancels its unpaid PaymentIntent (a declined try left one behind).
    if (piId !== null) {
      const pi = intentOf(piId).object
      if (pi.status === 'requires_payment_method') {
        pi.status = 'canceled'
        pi['canceled_at'] = nowSeconds()
        pi['cancellation_reason'] = 'abandoned'
        emit('payment_intent.canceled', pi)
      }
    }
    emit('checkout.session.expired', session.object)
  }

  const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action']

  function cancel(intent: Intent, reason: string | null): void {
    const pi = intent.object
    if (!CANCELABLE.includes(pi.status))
      throw invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
        { code: 'payment_intent_unexpected_state' },
      )
    pi.status = 'canceled'
    pi.amount_capturable = 0
    pi['canceled_at'] = nowSeconds()
    pi['cancellation_reason'] = reason
    emit('payment_intent.canceled', pi)
  }

  // --- the API ---------------------------------------------------------------------------------------------------

  function sessionView(session: Session, expand: readonly string[]): Json {
    const view: Json = { ...session.object }
    const piId = session.object.payment_intent
    if (expand.includes('payment_intent') && piId !== null) view['payment_intent'] = { ...intentOf(piId).object }
    return view
  }

  function createSession(params: FormObject): Json {
    const mode = str(params['mode'])
    if (mode === undefined) throw invalid('Missing required param: mode.', { param: 'mode' })
    if (mode !== 'payment') throw invalid(`This fake only knows mode=payment, not ${mode}.`, { param: 'mode' })
    const items = list(params['line_items'])
    if (items === undefined || items.length !== 1)
      throw invalid('This fake takes exactly one line item.', { param: 'line_items' })
    const item = obj(items[0]) ?? {}
    const price = obj(item['price_data'])
    if (price === undefined)
      throw invalid('Missing required param: line_items[0][price_data].', { param: 'line_items' })
    const currency = str(price['currency'])
    if (currency === undefined || !/^[a-z]{3}$/.test(currency))
      throw invalid(`Invalid currency: ${currency ?? ''}. Stripe currently supports these currencies: usd, eur, …`, {
        param: 'line_items[0][price_data][currency]',
      })
    const unitAmount = integer(price['unit_amount'], 'line_items[0][price_data][unit_amount]')
    if (unitAmount === undefined)
      throw invalid('Missing required param: line_items[0][price_data][unit_amount].', {
        param: 'line_items[0][price_data][unit_amount]',
      })
    const name = str(obj(price['product_data'])?.['name'])
    if (name === undefined || name === '')
      throw invalid('Missing required param: line_items[0][price_data][product_data][name].', {
        param: 'line_items[0][price_data][product_data][name]',
      })
    const quantity = integer(item['quantity'], 'line_items[0][quantity]') ?? 1
    const pid = obj(params['payment_intent_data']) ?? {}
    const captureMethod = str(pid['capture_method']) ?? 'automatic'
    if (captureMethod !== 'automatic' && captureMethod !== 'manual' && captureMethod !== 'automatic_async')
      throw invalid(`Invalid capture_method: ${captureMethod}`, { param: 'payment_intent_data[capture_method]' })
    const created = nowSeconds()
    const expiresAt = integer(params['expires_at'], 'expires_at') ?? created + 24 * 3600
    if (expiresAt < created + 30 * 60)
      throw invalid('The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.', {
        param: 'expires_at',
      })
    if (expiresAt > created + 24 * 3600)
      throw invalid('The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.', {
        param: 'expires_at',
      })
    const successUrl = str(params['success_url']) ?? null
    const cancelUrl = str(params['cancel_url']) ?? null
    const id = randomId('cs_test_', 58)
    const session: Session = {
      amount: unitAmount * quantity,
      currency,
      captureMethod: captureMethod === 'manual' ? 'manual' : 'automatic',
      piMetadata: stringMap(pid['metadata'], 'payment_intent_data[metadata]'),
      successUrl,
      cancelUrl,
      object: {
        id,
        object: 'checkout.session',
        amount_subtotal: unitAmount * quantity,
        amount_total: unitAmount * quantity,
        cancel_url: cancelUrl,
        client_reference_id: str(params['client_reference_id']) ?? null,
        created,
        currency,
        customer: null,
        expires_at: expiresAt,
        livemode: false,
        metadata: stringMap(params['metadata'], 'metadata'),
        mode: 'payment',
        payment_intent: null,
        payment_method_types: ['card'],
        payment_status: 'unpaid',
        status: 'open',
        success_url: successUrl,
        ui_mode: 'hosted',
        url: `${apiUrl}/c/pay/${id}`,
      },
    }
    sessions.set(id, session)
    createdCount += 1
    return { ...session.object }
  }

  function capture(intent: Intent, params: FormObject): Json {
    const pi = intent.object
    if (pi.status !== 'requires_capture')
      throw invalid(
        `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        { code: 'payment_intent_unexpected_state' },
      )
    const amount = integer(params['amount_to_capture'], 'amount_to_capture') ?? pi.amount_capturable
    if (amount > pi.amount_capturable)
      throw invalid('The amount to capture is greater than the amount capturable.', {
        code: 'amount_too_large',
        param: 'amount_to_capture',
      })
    pi.status = 'succeeded'
    pi.amount_received = amount
    pi.amount_capturable = 0
    const session = sessions.get(intent.sessionId)
    if (session !== undefined) session.object['payment_status'] = 'paid'
    emit('payment_intent.succeeded', pi)
    return { ...pi }
  }

  function createRefund(params: FormObject): Json {
    if (refuseRefund) {
      refuseRefund = false
      throw invalid('The charge you are attempting to refund has been charged back.', { code: 'charge_disputed' })
    }
    const piId = str(params['payment_intent'])
    if (piId === undefined) throw invalid('Missing required param: payment_intent.', { param: 'payment_intent' })
    const intent = intentOf(piId)
    const pi = intent.object
    if (pi.status !== 'succeeded')
      throw invalid(`This PaymentIntent (${piId}) does not have a successful charge to refund.`, {
        code: 'charge_not_refundable',
      })
    const remaining = pi.amount_received - intent.refunded
    if (remaining === 0)
      throw invalid(`Charge ${String(pi['latest_charge'])} has already been refunded.`, {
        code: 'charge_already_refunded',
      })
    const amount = integer(params['amount'], 'amount') ?? remaining
    if (amount <= 0) throw invalid('Invalid positive integer', { param: 'amount' })
    if (amount > remaining)
      throw invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`, {
        code: 'amount_too_large',
        param: 'amount',
      })
    intent.refunded += amount
    const refund: Json = {
      id: randomId('re_'),
      object: 'refund',
      amount,
      charge: pi['latest_charge'],
      created: nowSeconds(),
      currency: pi.currency,
      metadata: stringMap(params['metadata'], 'metadata'),
      payment_intent: piId,
      reason: str(params['reason']) ?? null,
      status: 'succeeded',
    }
    refunds.set(refund['id'] as string, refund)
    // every refund sends refund.created with the Refund
    // (https://docs.stripe.com/changelog/acacia/2024-10-28/refund-webhook-update)
    emit('refund.created', refund)
    return refund
  }

  function expandOf(params: FormObject): string[] {
    return (list(params['expand']) ?? []).filter((x): x is string => typeof x === 'string')
  }

  /** Routes one authenticated API request; returns the 200 body or throws an ApiError. */
  function route(method: string, path: string, params: FormObject): Json {
    let m: RegExpExecArray | null
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(params)
    if ((m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path)) && method === 'GET')
      return sessionView(sessionOf(decodeURIComponent(m[1] ?? '')), expandOf(params))
    if ((m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path)) && method === 'POST') {
      const session = sessionOf(decodeURIComponent(m[1] ?? ''))
      expire(session)
      return sessionView(session, expandOf(params))
    }
    if ((m = /^\/v1\/payment_intents\/([^/]+)$/.exec(path)) && method === 'GET')
      return { ...intentOf(decodeURIComponent(m[1] ?? '')).object }
    if ((m = /^\/v1\/payment_intents\/([^/]+)\/capture$/.exec(path)) && method === 'POST')
      return capture(intentOf(decodeURIComponent(m[1] ?? '')), params)
    if ((m = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(path)) && method === 'POST') {
      const intent = intentOf(decodeURIComponent(m[1] ?? ''))
      const reason = str(params['cancellation_reason']) ?? null
      cancel(intent, reason)
      return { ...intent.object }
    }
    if (method === 'POST' && path === '/v1/refunds') return createRefund(params)
    if ((m = /^\/v1\/refunds\/([^/]+)$/.exec(path)) && method === 'GET') {
      const id = decodeURIComponent(m[1] ?? '')
      const refund = refunds.get(id)
      if (refund === undefined) throw missing('refund', id)
      return { ...refund }
    }
    throw new ApiError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    })
  }

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, {
      'content-type': 'application/json',
      'request-id': randomId('req_', 14),
      'stripe-version': apiVersion,
      ...headers,
    })
    res.end(body)
  }

  const errorBody = (e: ApiError): string =>
    JSON.stringify({ error: { ...e.body, request_log_url: null, doc_url: null } }, null, 2)

  function authenticated(req: IncomingMessage): ApiError | undefined {
    const header = req.headers.authorization
    let key: string | undefined
    if (header?.startsWith('Bearer ')) key = header.slice('Bearer '.length).trim()
    else if (header?.startsWith('Basic '))
      key = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]
    if (key === undefined || key === '')
      return new ApiError(401, {
        type: 'invalid_request_error',
        message:
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      })
    if (key !== secretKey)
      return new ApiError(401, {
        type: 'invalid_request_error',
        code: 'api_key_invalid',
        message: `Invalid API Key provided: ${maskKey(key)}`,
      })
    return undefined
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: string, body: string) {
    const method = req.method ?? 'GET'
    const keyHeader = req.headers['idempotency-key']
    const idempotencyKey = typeof keyHeader === 'string' ? keyHeader : undefined
    requests.push({ method, path, idempotencyKey })
    if (down === 'hang') {
      hanging.add(res)
      res.on('close', () => hanging.delete(res))
      return
    }
    if (down === 'error') {
      send(
        res,
        503,
        errorBody(
          new ApiError(503, { type: 'api_error', message: 'Stripe is temporarily unavailable (the fake is down).' }),
        ),
      )
      return
    }
    const refused = authenticated(req)
    if (refused !== undefined) {
      send(res, refused.status, errorBody(refused), { 'www-authenticate': 'Bearer realm="Stripe"' })
      return
    }
    const version = req.headers['stripe-version']
    if (typeof version === 'string' && version !== '') apiVersion = version
    let params: FormObject
    try {
      params = parseStripeForm(method === 'GET' || method === 'DELETE' ? query : body)
    } catch (error) {
      send(res, 400, errorBody(invalid(error instanceof FormError ? error.message : 'Invalid request body')))
      return
    }
    const fingerprint = `${method} ${path} ${canonical(params)}`
    const slot = method === 'POST' && idempotencyKey !== undefined ? `${secretKey}\n${idempotencyKey}` : undefined
    if (slot !== undefined) {
      const earlier = idempotent.get(slot)
      if (earlier !== undefined) {
        if (earlier.fingerprint !== fingerprint) {
          const e = new ApiError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          })
          send(res, 400, errorBody(e))
          return
        }
        send(res, earlier.status, earlier.body, {
          'idempotent-replayed': 'true',
          'idempotency-key': idempotencyKey ?? '',
        })
        return
      }
    }
    let status: number
    let out: string
    const eventsBefore = allEvents.length
    try {
      // Synchronous from here to the stored answer: two requests with one key cannot both create.
      out = JSON.stringify(route(method, path, params), null, 2)
      status = 200
    } catch (error) {
      if (!(error instanceof ApiError)) {
        send(res, 500, errorBody(new ApiError(500, { type: 'api_error', message: String(error) })))
        return
      }
      status = error.status
      out = errorBody(error)
    }
    if (slot !== undefined) idempotent.set(slot, { fingerprint, status, body: out })
    // only a change's own answer waits: the receiver may ask the API again before it answers the event
    if (notifyFirst && allEvents.length > eventsBefore) await chain
    send(res, status, out, idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey })
  }

  // --- the hosted checkout page ------------------------------------------------------------------------------------

  const escape = (s: string): string =>
    s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

  function page(res: ServerResponse, status: number, session: Session | undefined, note: string): void {
    const s = session?.object
    const open = s?.status === 'open'
    const item = s === undefined ? '' : `${escape(String(session?.amount))} ${escape(session?.currency ?? '')}`
    const back = session?.cancelUrl ?? null
    const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fake Stripe Checkout</title></head>
<body>
<main>
<h1>Fake Stripe Checkout</h1>
${s === undefined ? '' : `<p>Pay <strong data-testid="amount">${item}</strong> (in Stripe's units)</p>`}
${note === '' ? '' : `<p role="alert">${escape(note)}</p>`}
${
  open && s !== undefined
    ? `<form method="post" action="/c/pay/${escape(s.id)}"><input type="hidden" name="action" value="pay"><button type="submit">Pay</button></form>
<form method="post" action="/c/pay/${escape(s.id)}"><input type="hidden" name="action" value="decline"><button type="submit">Decline</button></form>`
    : ''
}
${back === null ? '' : `<p><a href="${escape(back)}">Back</a></p>`}
</main>
</body></html>`
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
    res.end(html)
  }

  async function hosted(req: IncomingMessage, res: ServerResponse, id: string, query: string, body: string) {
    const session = sessions.get(id)
    if (session === undefined) return page(res, 404, undefined, 'Something went wrong: this checkout does not exist.')
    if (req.method === 'GET') {
      const declined = new URLSearchParams(query).get('declined') !== null
      const note =
        session.object.status === 'expired'
          ? 'This checkout session has expired.'
          : session.object.status === 'complete'
            ? 'This checkout session is complete.'
            : declined
              ? 'Your card was declined. Try another card.'
              : ''
      return page(res, 200, session, note)
    }
    if (req.method !== 'POST') return page(res, 405, session, 'Method not allowed.')
    const action = new URLSearchParams(body).get('action')
    if (action !== 'pay' && action !== 'decline') return page(res, 400, session, 'Unknown action.')
    try {
      await buyer(id, action)
    } catch (error) {
      return page(res, 409, session, error instanceof Error ? error.message : String(error))
    }
    const location =
      action === 'pay'
        ? (session.successUrl ?? `/c/pay/${id}`).replaceAll('{CHECKOUT_SESSION_ID}', id)
        : `/c/pay/${id}?declined=1`
    res.writeHead(303, { location })
    res.end()
  }

  // --- the server --------------------------------------------------------------------------------------------------

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const url = req.url ?? '/'
      const q = url.indexOf('?')
      const path = q === -1 ? url : url.slice(0, q)
      const query = q === -1 ? '' : url.slice(q + 1)
      const m = /^\/c\/pay\/([^/]+)$/.exec(path)
      const handled =
        m !== null ? hosted(req, res, decodeURIComponent(m[1] ?? ''), query, body) : api(req, res, path, query, body)
      handled.catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, JSON.stringify({ error: { type: 'api_error', message: String(error) } }))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    apiUrl,
    secretKey,
    webhookSecret,
    get createdCount() {
      return createdCount
    },
    get deliveries() {
      return deliveries
    },
    get requests() {
      return requests
    },
    setNotificationUrl(url) {
      notificationUrl = url
    },
    buyer,
    async expireCheckout(checkoutId) {
      expire(sessionOf(checkoutId))
      await chain
    },
    async lapseHold(paymentId) {
      const intent = intentOf(paymentId)
      if (intent.object.status !== 'requires_capture')
        throw new Error(`${paymentId} is ${intent.object.status}, not a hold that can lapse`)
      cancel(intent, 'automatic')
      await chain
    },
    dropNotifications(n) {
      toDrop = n
    },
    notifyBeforeAnswering(on) {
      notifyFirst = on
    },
    queuedNotifications: () => queue.length,
    pauseNotifications() {
      paused = true
    },
    async releaseNotifications(order) {
      const queued = queue
      queue = []
      paused = false
      const picked = order === undefined ? queued : order.map((i) => queued[i])
      const rest = order === undefined ? [] : queued.filter((_, i) => !order.includes(i))
      for (const n of [...picked, ...rest]) {
        if (n === undefined) throw new Error('releaseNotifications: an index outside the queue')
        void enqueue(n)
      }
      await chain
    },
    async replayNotifications() {
      for (const n of [...sent]) void enqueue(n, true)
      await chain
    },
    settled() {
      return chain
    },
    refuseNextRefund() {
      refuseRefund = true
    },
    refunds() {
      return [...refunds.values()].map((r) => structuredClone(r))
    },
    async failRefund(refundId, reason = 'expired_or_canceled_card') {
      const refund = refunds.get(refundId)
      if (refund === undefined) throw new Error(`failRefund: no refund ${refundId}`)
      if (refund['status'] === 'failed' || refund['status'] === 'canceled')
        throw new Error(`failRefund: refund ${refundId} is ${String(refund['status'])} already`)
      refund['status'] = 'failed'
      refund['failure_reason'] = reason
      intentOf(String(refund['payment_intent'])).refunded -= refund['amount'] as number
      emit('refund.updated', refund)
      emit('refund.failed', refund)
      await chain
    },
    setDown(mode) {
      down = mode
      if (mode === false) {
        for (const res of hanging) res.destroy()
        hanging.clear()
      }
    },
    payments(): readonly FakePayment[] {
      return [...intents.values()].map((i) => ({
        id: i.object.id,
        checkoutId: i.sessionId,
        status: i.object.status,
        amount: i.object.amount,
        currency: i.object.currency,
        refunded: i.refunded,
        metadata: { ...i.object.metadata },
      }))
    },
    sessions() {
      return [...sessions.values()].map((s) => ({ ...s.object }))
    },
    events() {
      return allEvents.map((e) => structuredClone(e))
    },
    async close() {
      for (const res of hanging) res.destroy()
      hanging.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
