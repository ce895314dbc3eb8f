import type { FastifyBaseLogger } from 'fastify'
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
import type { HttpMetrics } from './plugins/metrics.js'

/** The use cases the HTTP shell calls, already bound to their dependencies by the composition root. */
export interface InvoiceUseCases {
  create(merchant: Merchant, input: CreateInvoiceInput): Promise<CreateInvoiceResult>
  getInfo(merchant: Merchant, query: GetInfoQuery): Promise<Invoice>
  get(merchant: Merchant, id: string): Promise<Invoice>
  list(merchant: Merchant, query: ListInvoicesQuery): Promise<{ invoices: Invoice[]; nextCursor: string | null }>
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

export interface HttpOptions {
  readonly logger: FastifyBaseLogger
  readonly publicUrl: string
  readonly bodyLimit: number
  /** Collect Node's default process metrics (off in tests that build many apps). */
  readonly defaultMetrics: boolean
}

export interface HttpDeps {
  readonly publicUrl: string
  readonly authenticate: (apiKey: string | undefined) => Promise<Authenticated>
  readonly invoices: InvoiceUseCases
  readonly payments: PaymentUseCases
  /** SANDBOX: the simulate endpoint and the page's test controls exist only when true. */
  readonly sandbox: boolean
  readonly ping: () => Promise<void>
  readonly now: () => Date
  readonly qrPng: (text: string) => Buffer
  readonly qrDataUri: (text: string) => string
  readonly metrics: HttpMetrics
}

