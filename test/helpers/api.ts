/**
 * A typed client over the app under test: every endpoint of /openapi.json by name, sent through `app.inject` (no
 * sockets), its bodies, queries and answers typed from the generated client schema
 * (packages/client/src/schema.d.ts), so a route schema that changes shows up in the tests' types.
 *
 *   const shop = api(t).as(merchant)
 *   const res = await shop.createInvoice({ order_id: 'A-1', amount: '10.00', currency: 'RUB' })
 *   expectStatus(res, 201) // now res.body is the 201 body
 *   expectProblem(await shop.cancel(res.body.order_id), 409, 'invalid_transition')
 *
 * Each call answers `{ status, body, headers, text, bytes }` whatever the status, so errors are asserted like
 * successes. Tests of raw HTTP (malformed JSON, content types, sizes, headers themselves) use `raw`.
 */
import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { expect } from 'vitest'
import type { components, operations } from '../../packages/client/src/schema.js'

type Operation = keyof operations
type Schemas = components['schemas']
export type Problem = Schemas['Problem']
export type ProblemCode = Problem['code']
export type Invoice = Schemas['Invoice']
export type Delivery = Schemas['Delivery']
export type Refund = Schemas['Refund']

/** An answer: the status, the body parsed (JSON, a problem document for an error) or as text, and the headers. */
export interface Answer<S extends number = number, B = unknown> {
  readonly status: S
  /** The JSON body parsed when the answer is JSON, else its text; `undefined` when empty. */
  readonly body: B
  readonly headers: OutgoingHttpHeaders
  /** The body as text (for assertion messages and checks of the exact bytes written). */
  readonly text: string
  /** The body as bytes (the QR image). */
  readonly bytes: Buffer
}

type Responses<O extends Operation> = operations[O]['responses']
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined
/** The answers an operation documents, one member per status: `expectStatus` picks one. */
export type AnswerOf<O extends Operation> = {
  [S in keyof Responses<O>]: S extends number ? Answer<S, ContentOf<Responses<O>[S]>> : never
}[keyof Responses<O>]

type JsonBodyOf<O extends Operation> = operations[O] extends {
  requestBody: { content: { 'application/json': infer B } }
}
  ? B
  : never
export type CreateInvoiceBody = JsonBodyOf<'createInvoice'>
/** Some fields of a create body, for `newInvoice` to complete. */
export type InvoiceFields = { readonly [K in keyof CreateInvoiceBody]?: CreateInvoiceBody[K] | undefined }
type QueryOf<O extends Operation> = NonNullable<operations[O]['parameters']['query']>

declare const uncheckedBrand: unique symbol
/** A body or query the schema does not allow, sent as it is: what a validation test sends on purpose. */
export interface Unchecked {
  readonly [uncheckedBrand]: true
}
/** Marks `value` as deliberately outside the schema (an unknown field, a wrong type, a missing required field). */
export const unchecked = (value: Record<string, unknown>): Unchecked => value as unknown as Unchecked

/** A query as its typed parameters, or a string sent as written (for tests of encodings and repeats). */
type Query<O extends Operation> = QueryOf<O> | Unchecked | string

export interface RequestOptions {
  /** Sent on top of the client's own (its API key): a header given here wins. */
  readonly headers?: Readonly<Record<string, string>>
  /** The peer address the app sees (rate limits by address). */
  readonly remoteAddress?: string
}

export interface RawRequest extends RequestOptions {
  readonly method?: InjectOptions['method']
  readonly url: string
  readonly payload?: string | Buffer
}

/** Something serving the app under test: a TestApp, or an app a test built itself. */
export interface Target {
  readonly app: FastifyInstance
}

let orders = 0

export class TestClient {
  constructor(
    private readonly target: Target,
    private readonly apiKey?: string,
  ) {}

  /** The same client sending `who`'s API key (a TestMerchant, or any `{ apiKey }` under test). */
  as(who: { readonly apiKey: string }): TestClient {
    return new TestClient(this.target, who.apiKey)
  }

  // merchant endpoints: without `as`, they are sent without a key

  createInvoice(body: CreateInvoiceBody | Unchecked, opts?: RequestOptions): Promise<AnswerOf<'createInvoice'>> {
    return this.json('POST', '/api/v1/invoices', body, opts)
  }

  /**
   * Creates an invoice, expecting 201, and resolves to its id: a fresh order of 1.00 RUB unless `body` says else
   * (a field given as `undefined` is left out).
   */
  async newInvoice(body: InvoiceFields = {}, opts?: RequestOptions): Promise<string> {
    orders += 1
    const fields = { order_id: `T-${orders}`, amount: '1.00', currency: 'RUB', ...body }
    const res = await this.createInvoice(fields as CreateInvoiceBody, opts) // JSON leaves the undefined ones out
    expectStatus(res, 201)
    return res.body.order_id
  }

  getInfo(query: Query<'getInvoiceInfo'>, opts?: RequestOptions): Promise<AnswerOf<'getInvoiceInfo'>> {
    return this.send({ url: `/api/invoice/getInfo${search(query)}`, ...opts })
  }

  getInvoice(id: string, opts?: RequestOptions): Promise<AnswerOf<'getInvoice'>> {
    return this.send({ url: `/api/v1/invoices/${encodeURIComponent(id)}`, ...opts })
  }

  listInvoices(query: Query<'listInvoices'> = {}, opts?: RequestOptions): Promise<AnswerOf<'listInvoices'>> {
    return this.send({ url: `/api/v1/invoices${search(query)}`, ...opts })
  }

  capture(id: string, opts?: RequestOptions): Promise<AnswerOf<'captureInvoice'>> {
    return this.send({ method: 'POST', url: `/api/v1/invoices/${encodeURIComponent(id)}/capture`, ...opts })
  }

  cancel(id: string, opts?: RequestOptions): Promise<AnswerOf<'cancelInvoice'>> {
    return this.send({ method: 'POST', url: `/api/v1/invoices/${encodeURIComponent(id)}/cancel`, ...opts })
  }

  /** A refund of the invoice, with `key` as its Idempotency-Key (none when undefined). */
  createRefund(
    invoiceId: string,
    body: JsonBodyOf<'createRefund'> | Unchecked,
    key: string | undefined,
    opts?: RequestOptions,
  ): Promise<AnswerOf<'createRefund'>> {
    return this.json('POST', `/api/v1/invoices/${encodeURIComponent(invoiceId)}/refunds`, body, {
      ...opts,
      headers: { ...(key === undefined ? {} : { 'idempotency-key': key }), ...opts?.headers },
    })
  }

  listRefunds(invoiceId: string, opts?: RequestOptions): Promise<AnswerOf<'listRefunds'>> {
    return this.send({ url: `/api/v1/invoices/${encodeURIComponent(invoiceId)}/refunds`, ...opts })
  }

  getRefund(id: string, opts?: RequestOptions): Promise<AnswerOf<'getRefund'>> {
    return this.send({ url: `/api/v1/refunds/${encodeURIComponent(id)}`, ...opts })
  }

  /** The sandbox's refund test control: the invoice's next refund fails. */
  failNextSandboxRefund(invoiceId: string, opts?: RequestOptions): Promise<AnswerOf<'failNextSandboxRefund'>> {
    return this.send({
      method: 'POST',
      url: `/api/v1/sandbox/invoices/${encodeURIComponent(invoiceId)}/fail-next-refund`,
      ...opts,
    })
  }

  listDeliveries(
    query: Query<'listWebhookDeliveries'> = {},
    opts?: RequestOptions,
  ): Promise<AnswerOf<'listWebhookDeliveries'>> {
    return this.send({ url: `/api/v1/webhooks/deliveries${search(query)}`, ...opts })
  }

  retryDelivery(id: string, opts?: RequestOptions): Promise<AnswerOf<'retryWebhookDelivery'>> {
    return this.send({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${encodeURIComponent(id)}/retry`,
      ...opts,
    })
  }

  sendTestWebhook(
    body: JsonBodyOf<'sendTestWebhook'> | Unchecked,
    opts?: RequestOptions,
  ): Promise<AnswerOf<'sendTestWebhook'>> {
    return this.json('POST', '/api/v1/webhooks/test', body, opts)
  }

  // public endpoints: the payment page, its status and test controls, the QR image, operations

  paymentPage(
    id: string,
    query: Query<'getPaymentPage'> = {},
    opts?: RequestOptions,
  ): Promise<AnswerOf<'getPaymentPage'>> {
    return this.send({ url: `/pay/${encodeURIComponent(id)}${search(query)}`, ...opts })
  }

  paymentStatus(id: string, opts?: RequestOptions): Promise<AnswerOf<'getPaymentStatus'>> {
    return this.send({ url: `/pay/${encodeURIComponent(id)}/status`, ...opts })
  }

  /** The sandbox's test controls as the page's script calls them (JSON). */
  simulate(
    id: string,
    body: JsonBodyOf<'simulatePayment'> | Unchecked,
    opts?: RequestOptions & { readonly query?: Query<'simulatePayment'> },
  ): Promise<AnswerOf<'simulatePayment'>> {
    return this.json('POST', `/pay/${encodeURIComponent(id)}/simulate${search(opts?.query ?? {})}`, body, opts)
  }

  /** The sandbox's test controls as the page's form posts them (`outcome=paid`, URL-encoded as written). */
  simulateForm(
    id: string,
    form: string,
    opts?: RequestOptions & { readonly query?: Query<'simulatePayment'> },
  ): Promise<AnswerOf<'simulatePayment'>> {
    return this.send({
      method: 'POST',
      url: `/pay/${encodeURIComponent(id)}/simulate${search(opts?.query ?? {})}`,
      payload: form,
      ...opts,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts?.headers },
    })
  }

  qr(id: string, opts?: RequestOptions): Promise<AnswerOf<'getQrImage'>> {
    return this.send({ url: `/qr/${encodeURIComponent(id)}.png`, ...opts })
  }

  healthz(opts?: RequestOptions): Promise<AnswerOf<'healthz'>> {
    return this.send({ url: '/healthz', ...opts })
  }

  readyz(opts?: RequestOptions): Promise<AnswerOf<'readyz'>> {
    return this.send({ url: '/readyz', ...opts })
  }

  metrics(opts?: RequestOptions): Promise<AnswerOf<'metrics'>> {
    return this.send({ url: '/metrics', ...opts })
  }

  /** The OpenAPI document the app serves (untyped: the tests read it as the JSON it is). */
  openapi(): Promise<Answer<number, Record<string, any>>> {
    return this.send({ url: '/openapi.json' })
  }

  /**
   * A request as written: any method, URL, headers and bytes (with the client's key unless `headers` set
   * `x-api-key`). For the tests where the wire is the point; its body is untyped.
   */
  raw(req: RawRequest): Promise<Answer<number, any>> {
    return this.send(req)
  }

  private json<A extends Answer>(
    method: 'POST',
    url: string,
    body: unknown,
    opts: RequestOptions | undefined,
  ): Promise<A> {
    return this.send({
      method,
      url,
      payload: JSON.stringify(body),
      ...opts,
      headers: { 'content-type': 'application/json', ...opts?.headers },
    })
  }

  private async send<A extends Answer>(req: RawRequest): Promise<A> {
    const res = await this.target.app.inject({
      method: req.method ?? 'GET',
      url: req.url,
      headers: { ...(this.apiKey === undefined ? {} : { 'x-api-key': this.apiKey }), ...req.headers },
      ...(req.payload !== undefined && { payload: req.payload }),
      ...(req.remoteAddress !== undefined && { remoteAddress: req.remoteAddress }),
    })
    const text = res.payload
    const isJson = /[/+]json\b/.test(String(res.headers['content-type'] ?? ''))
    const answer: Answer = {
      status: res.statusCode,
      body: text === '' ? undefined : isJson ? JSON.parse(text) : text,
      headers: res.headers,
      text,
      bytes: res.rawPayload,
    }
    return answer as A
  }
}

/** A client of the app under test, sending no key until `.as(merchant)`. */
export const api = (target: Target): TestClient => new TestClient(target)

/** Asserts the status (the body in the message otherwise) and narrows the answer to that status's body. */
export function expectStatus<A extends Answer, S extends A['status']>(
  res: A,
  status: S,
): asserts res is A & { readonly status: S } {
  expect(res.status, `${res.status} ${res.text.slice(0, 500)}`).toBe(status)
}

/** Asserts an RFC 9457 problem of this status and code (docs/api.md#errors) and returns it. */
export function expectProblem(res: Answer, status: number, code: ProblemCode): Problem {
  expect(res.status, `${res.status} ${res.text.slice(0, 500)}`).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  const problem = res.body as Problem
  expect(problem).toMatchObject({ type: 'about:blank', status, code })
  expect(typeof problem.title).toBe('string')
  expect(typeof problem.detail).toBe('string')
  return problem
}

function search(query: Record<string, unknown> | Unchecked | string): string {
  if (typeof query === 'string') return query === '' || query.startsWith('?') ? query : `?${query}`
  const pairs: string[] = []
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value])
      pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`)
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`
}
