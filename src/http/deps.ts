import type { FastifyBaseLogger } from 'fastify'
import type { RateLimiter } from '../ports/rate-limiter.js'
import type { Authenticated } from '../app/authenticate-api-key.js'
import type { CreateInvoiceResult } from '../app/create-invoice.js'
import type { GetInfoQuery } from '../app/get-invoice.js'
import type { ListInvoicesQuery } from '../app/list-invoices.js'
import type { InvoiceId } from '../domain/ids.js'
import type { Invoice } from '../domain/invoice.js'
import type { CreateInvoiceInput } from '../domain/invoice-request.js'
import type { Merchant } from '../domain/merchant.js'
import type { PaymentView } from '../app/get-payment-view.js'
import type { SimulatedOutcome } from '../app/simulate-payment.js'
import type { ListDeliveriesQuery } from '../app/list-deliveries.js'
import type { TestWebhookResult } from '../app/send-test-webhook.js'
import type { DeliveryWithAttempts } from '../domain/delivery.js'
import type { Registry } from 'prom-client'
import type { HttpMetrics } from './plugins/metrics.js'

/** The use cases the HTTP shell calls, already bound to their dependencies by the composition root. */
export interface InvoiceUseCases {
  create(merchant: Merchant, input: CreateInvoiceInput): Promise<CreateInvoiceResult>
  getInfo(merchant: Merchant, query: GetInfoQuery): Promise<Invoice>
  get(merchant: Merchant, id: string): Promise<Invoice>
  list(
    merchant: Merchant,
    query: ListInvoicesQuery,
  ): Promise<{ invoices: Invoice[]; nextCursor: string | null; asOf: Date }>
  findPublic(id: InvoiceId): Promise<Invoice | undefined>
  capture(merchant: Merchant, id: string): Promise<Invoice>
  cancel(merchant: Merchant, id: string): Promise<Invoice>
}

/** The buyer-facing payment flow. */
export interface PaymentUseCases {
  view(id: InvoiceId): Promise<PaymentView | undefined>
  /** The sandbox provider's notification; only wired when the sandbox is enabled. */
  simulate(id: InvoiceId, outcome: SimulatedOutcome): Promise<Invoice>
}

/** The merchant's webhook endpoints (API.md C). */
export interface WebhookUseCases {
  listDeliveries(
    merchant: Merchant,
    query: ListDeliveriesQuery,
  ): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor: string | null }>
  redeliver(merchant: Merchant, id: string): Promise<DeliveryWithAttempts>
  sendTest(merchant: Merchant, url: string): Promise<TestWebhookResult>
}

export interface HttpOptions {
  readonly logger: FastifyBaseLogger
  readonly publicUrl: string
  readonly bodyLimit: number
  /** Collect Node's default process metrics (off in tests that build many apps). */
  readonly defaultMetrics: boolean
  /** Further registries /metrics exposes beside the HTTP one (the workers' webhook metrics). */
  readonly metricsRegistries?: readonly Registry[]
  /** TRUST_PROXY (config.ts): whose X-Forwarded-For names the client; false: the connection's peer is the client. */
  readonly trustProxy?: false | number | readonly string[]
  /** How long a request may take to arrive in full, and how often that is checked (default 30 s, every 5 s). */
  readonly requestTimeout?: RequestTimeout
}

export interface RequestTimeout {
  readonly ms: number
  readonly checkEveryMs: number
}

export interface HttpDeps {
  readonly publicUrl: string
  readonly authenticate: (apiKey: string | undefined) => Promise<Authenticated>
  /** Per-key and failed-authentication limits (API.md B8). */
  readonly rateLimiter: RateLimiter
  readonly invoices: InvoiceUseCases
  readonly payments: PaymentUseCases
  readonly webhooks: WebhookUseCases
  /** SANDBOX: the simulate endpoint and the page's test controls exist only when true. */
  readonly sandbox: boolean
  readonly ping: () => Promise<void>
  readonly now: () => Date
  readonly qrPng: (text: string) => Buffer
  readonly qrDataUri: (text: string) => string
  readonly metrics: HttpMetrics
}
