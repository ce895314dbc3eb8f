import createClient, { type Client } from 'openapi-fetch'
import { InvoiceServiceError, errorOf } from './errors.js'
import type { paths } from './schema.js'
import type {
  CreateInvoiceRequest,
  CreateRefundRequest,
  CreatedInvoice,
  Delivery,
  DeliveryList,
  Invoice,
  InvoiceList,
  InvoiceLookup,
  ListDeliveriesQuery,
  ListInvoicesQuery,
  Refund,
  TestWebhookResult,
} from './types.js'

export interface CreateRefundOptions {
  /**
   * The Idempotency-Key: the same key with the same body answers the same refund. Default: a new random key per
   * call, which the client's own retries reuse. Pass your own (e.g. derived from your return's id) to make a
   * refund safe to repeat across restarts of your process too.
   */
  readonly idempotencyKey?: string | undefined
}

export interface InvoiceClientOptions {
  /** Where the service is: its PUBLIC_URL, e.g. `https://pay.example.com` (no trailing path). */
  readonly baseUrl: string
  /** Your merchant API key, `mk_…`. */
  readonly apiKey: string
  /** Your merchant id: needed only to look invoices up by order_id. */
  readonly merchantId?: string | undefined
  /**
   * How many times a request is retried when it is safe to: on 429 and 503 always (unless Retry-After asks for more
   * than 10 s: then the error is thrown at once, with `retryAfter`); on 500, 502 and 504 and after no answer (a
   * network error or a timeout) only for reads and createInvoice, which is idempotent by order_id. Default 2; 0
   * turns it off.
   */
  readonly retries?: number | undefined
  /** Milliseconds one attempt may take. Default 15000. */
  readonly timeoutMs?: number | undefined
  /** A fetch implementation (default: the global one). */
  readonly fetch?: ((input: Request) => Promise<Response>) | undefined
}

/** The typed client of the invoice service. Every method throws InvoiceServiceError on failure. */
export interface InvoiceClient {
  /**
   * Creates the invoice of an order, or returns its live invoice (`is_new: false`) when this order_id already has
   * one with the same amount, currency and service: safe to retry with the same body.
   */
  createInvoice(body: CreateInvoiceRequest): Promise<CreatedInvoice>
  /**
   * An invoice by its id (`getInvoice(id)` or `{ invoice_id }`: the extension view, with `refunded_amount`), or by
   * your order_id (`{ order_id }`: the newest, as getInfo returns it).
   */
  getInvoice(lookup: string | InvoiceLookup): Promise<Invoice & { refunded_amount?: string }>
  /** hold → paid. */
  capture(invoiceId: string): Promise<Invoice>
  /** pending or hold → failed. */
  cancel(invoiceId: string): Promise<Invoice>
  /**
   * Refunds a paid invoice: `amount` (major units, a string or a number) or, without it, all that is left. Resolves
   * to the refund: `succeeded`, `failed` (the acquirer refused: `failure_reason`) or `pending` (the acquirer has
   * not answered yet; its outcome arrives as a refund.succeeded / refund.failed webhook). Safe to retry: every
   * attempt carries the same Idempotency-Key.
   */
  createRefund(invoiceId: string, body?: CreateRefundRequest, options?: CreateRefundOptions): Promise<Refund>
  /** The invoice's refunds, oldest first. */
  listRefunds(invoiceId: string): Promise<Refund[]>
  /** A refund by its id. */
  getRefund(refundId: string): Promise<Refund>
  /** One page of your invoices, newest first; pass `next_cursor` as `cursor` for the next. */
  listInvoices(query?: ListInvoicesQuery): Promise<InvoiceList>
  /** Every invoice matching `query`, page after page. */
  iterateInvoices(query?: Omit<ListInvoicesQuery, 'cursor'>): AsyncGenerator<Invoice, void, undefined>
  /** One page of your webhook delivery log, newest first. */
  listDeliveries(query?: ListDeliveriesQuery): Promise<DeliveryList>
  /** Sends a delivery again now, with the same webhook-id and body. */
  redeliver(deliveryId: string): Promise<Delivery>
  /** Sends a signed `webhook.test` event to `url` now and reports what it answered. */
  sendTestWebhook(url: string): Promise<TestWebhookResult>
  /** The underlying openapi-fetch client, typed by the same document, for anything the methods above do not cover. */
  readonly raw: Client<paths>
}

interface Outcome<T> {
  data?: T
  error?: unknown
  response: Response
}

/** When a failed attempt may be repeated: `always` for reads and idempotent writes, `answered` when refused unprocessed. */
type RetryPolicy = 'always' | 'answered'

/** Refused before anything ran (429), or the database could not be reached (503): any request may be repeated. */
const REFUSED_UNPROCESSED = new Set([429, 503])
/** A failure that may have come after the request took effect: only a request safe to repeat is. */
const FAILED_MAYBE_PROCESSED = new Set([500, 502, 504])
const MAX_RETRY_WAIT_MS = 10_000

/** A 2xx answer whose body is not the JSON the API sends (a proxy's page, a cut-off body). */
class MalformedAnswer extends Error {
  constructor(
    readonly response: Response,
    readonly text: string,
  ) {
    super(`HTTP ${response.status} with a body that is not JSON`)
  }
}

/**
 * `fetch` with the 2xx bodies checked: a body that does not parse as JSON is a MalformedAnswer (an answer, so never
 * taken for "no answer" and retried as one), not the SyntaxError openapi-fetch would throw while parsing it.
 */
function checkingJson(fetch: (input: Request) => Promise<Response>): (input: Request) => Promise<Response> {
  return async (input) => {
    const response = await fetch(input)
    if (!response.ok || response.status === 204 || input.method === 'HEAD') return response
    const text = await response.text()
    if (text !== '') {
      try {
        JSON.parse(text)
      } catch {
        throw new MalformedAnswer(response, text)
      }
    }
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export function createInvoiceClient(options: InvoiceClientOptions): InvoiceClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const retries = Math.max(0, Math.floor(options.retries ?? 2))
  const timeoutMs = options.timeoutMs ?? 15_000
  const raw = createClient<paths>({
    baseUrl,
    headers: { 'x-api-key': options.apiKey },
    fetch: checkingJson(options.fetch ?? ((input) => globalThis.fetch(input))),
    // The service never redirects an API call. Followed, a redirect would carry the API key (and the body) to
    // wherever it points: a 3xx is an unexpected_response instead.
    redirect: 'manual',
  })

  async function call<T>(policy: RetryPolicy, attempt: (signal: AbortSignal) => Promise<Outcome<T>>): Promise<T> {
    for (let n = 0; ; n += 1) {
      let outcome: Outcome<T>
      try {
        outcome = await attempt(AbortSignal.timeout(timeoutMs))
      } catch (cause) {
        if (cause instanceof MalformedAnswer) {
          throw new InvoiceServiceError({
            status: cause.response.status,
            code: 'unexpected_response',
            detail: `HTTP ${cause.response.status} with a body that is not JSON: ${cause.text.slice(0, 200)}`,
            requestId: cause.response.headers.get('x-request-id') ?? undefined,
          })
        }
        // No answer: the request may or may not have been processed, so only a safe request is repeated.
        if (policy === 'always' && n < retries) {
          await sleep(backoff(n))
          continue
        }
        const timedOut = cause instanceof Error && cause.name === 'TimeoutError'
        throw new InvoiceServiceError({
          status: 0,
          code: 'network_error',
          detail: timedOut
            ? `no answer within ${timeoutMs} ms`
            : `no answer from ${baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause,
        })
      }
      const { response } = outcome
      if (response.ok) return outcome.data as T
      const error = errorOf(response, outcome.error)
      const repeatable =
        REFUSED_UNPROCESSED.has(response.status) || (policy === 'always' && FAILED_MAYBE_PROCESSED.has(response.status))
      const wait = error.retryAfter !== undefined ? error.retryAfter * 1000 : backoff(n)
      // a longer Retry-After (an address blocked for a minute) is the caller's to wait for, not a retry's
      if (repeatable && n < retries && wait <= MAX_RETRY_WAIT_MS) {
        await sleep(wait)
        continue
      }
      throw error
    }
  }

  const requireMerchantId = (): string => {
    if (options.merchantId === undefined || options.merchantId === '') {
      throw new TypeError('looking an invoice up by order_id needs the merchantId option of createInvoiceClient')
    }
    return options.merchantId
  }

  const client: InvoiceClient = {
    raw,
    createInvoice: (body) => call('always', (signal) => raw.POST('/api/v1/invoices', { body, signal })),
    async getInvoice(lookup) {
      const invoiceId = typeof lookup === 'string' ? lookup : lookup.invoice_id
      if (invoiceId !== undefined) {
        return call('always', (signal) =>
          raw.GET('/api/v1/invoices/{invoice_id}', { params: { path: { invoice_id: invoiceId } }, signal }),
        )
      }
      const orderId = (lookup as { order_id: string }).order_id
      const merchantId = requireMerchantId()
      return call('always', (signal) =>
        raw.GET('/api/invoice/getInfo', { params: { query: { merchant_id: merchantId, order_id: orderId } }, signal }),
      )
    },
    capture: (invoiceId) =>
      call('answered', (signal) =>
        raw.POST('/api/v1/invoices/{invoice_id}/capture', { params: { path: { invoice_id: invoiceId } }, signal }),
      ),
    cancel: (invoiceId) =>
      call('answered', (signal) =>
        raw.POST('/api/v1/invoices/{invoice_id}/cancel', { params: { path: { invoice_id: invoiceId } }, signal }),
      ),
    createRefund(invoiceId, body = {}, opts = {}) {
      // one key for every attempt of this call: a retry after a lost answer is the same refund, never a second one
      const key = opts.idempotencyKey ?? globalThis.crypto.randomUUID()
      return call('always', (signal) =>
        raw.POST('/api/v1/invoices/{invoice_id}/refunds', {
          params: { path: { invoice_id: invoiceId }, header: { 'idempotency-key': key } },
          body,
          signal,
        }),
      )
    },
    async listRefunds(invoiceId) {
      const list = await call('always', (signal) =>
        raw.GET('/api/v1/invoices/{invoice_id}/refunds', { params: { path: { invoice_id: invoiceId } }, signal }),
      )
      return list.data
    },
    getRefund: (refundId) =>
      call('always', (signal) =>
        raw.GET('/api/v1/refunds/{refund_id}', { params: { path: { refund_id: refundId } }, signal }),
      ),
    listInvoices: (query = {}) =>
      call('always', (signal) => raw.GET('/api/v1/invoices', { params: { query: withTextLimit(query) }, signal })),
    async *iterateInvoices(query = {}) {
      let cursor: string | undefined
      do {
        const page = await client.listInvoices({ ...query, ...(cursor !== undefined && { cursor }) })
        yield* page.data
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined)
    },
    listDeliveries: (query = {}) =>
      call('always', (signal) =>
        raw.GET('/api/v1/webhooks/deliveries', { params: { query: withTextLimit(query) }, signal }),
      ),
    // a redelivery sends the same webhook-id again, so a repeat is harmless to a receiver that deduplicates
    redeliver: (deliveryId) =>
      call('answered', (signal) =>
        raw.POST('/api/v1/webhooks/deliveries/{delivery_id}/retry', {
          params: { path: { delivery_id: deliveryId } },
          signal,
        }),
      ),
    sendTestWebhook: (url) =>
      call('answered', (signal) => raw.POST('/api/v1/webhooks/test', { body: { url }, signal })),
  }
  return client
}

/** 200 ms, 400 ms, 800 ms … with ±25 % jitter. */
function backoff(n: number): number {
  return Math.min(200 * 2 ** n, MAX_RETRY_WAIT_MS) * (0.75 + Math.random() / 2)
}

/** The API takes `limit` as text; callers may pass a number. */
function withTextLimit<Q extends { limit?: number | string }>(query: Q): Omit<Q, 'limit'> & { limit?: string } {
  const { limit, ...rest } = query
  return limit === undefined ? rest : { ...rest, limit: String(limit) }
}
