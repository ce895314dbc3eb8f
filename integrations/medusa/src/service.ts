import {
  createInvoiceClient,
  isInvoiceServiceError,
  verifyWebhook,
  type Invoice,
  type InvoiceClient,
} from '@invoice-service/client'
import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  Logger,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from '@medusajs/framework/types'
import { AbstractPaymentProvider, MedusaError, PaymentActions } from '@medusajs/framework/utils'
import { toDecimal } from './amount'
import { optionProblems, type InvoiceServiceOptions } from './options'
import { EVENT_ACTION, SESSION_STATUS, type InvoiceStatus } from './status'

/** What a payment session (and then the payment) keeps in its `data`: the invoice and what the storefront shows. */
export interface SessionData extends Record<string, unknown> {
  session_id?: string
  invoice_id?: string
  pay_url?: string
  qr_url?: string
  qr_image?: string
  amount?: string
  currency?: string
  status?: InvoiceStatus
  refunds?: { id: string; amount: string; status: string }[]
}

/** Medusa's payment session ids: the order_id of every invoice this provider creates. */
const SESSION_ID = /^payses_[0-9A-Z]+$/

/**
 * Medusa v2 payment provider backed by the Merchant Invoice Service: a payment session is an invoice, paid on the
 * service's hosted page (`data.pay_url`); the service's signed webhooks move the payment and complete the cart.
 */
export class InvoiceServiceProvider extends AbstractPaymentProvider<InvoiceServiceOptions> {
  static override identifier = 'invoice-service'

  protected readonly options_: InvoiceServiceOptions
  protected readonly client_: InvoiceClient
  protected readonly logger_: Logger | undefined

  static override validateOptions(options: Record<string, unknown>): void {
    const problems = optionProblems(options)
    if (problems.length > 0)
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `invoice-service payment provider: ${problems.join('; ')} (see its README, "Configure")`,
      )
  }

  constructor(cradle: Record<string, unknown>, options: InvoiceServiceOptions) {
    super(cradle, options)
    this.options_ = options
    this.logger_ = cradle['logger'] as Logger | undefined
    this.client_ = createInvoiceClient({ baseUrl: options.apiUrl, apiKey: options.apiKey })
  }

  /** Creates the session's invoice; order_id is the session id, so a retry gets the same invoice back. */
  async initiatePayment({ amount, currency_code, data }: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const sessionId = data?.['session_id']
    if (typeof sessionId !== 'string' || sessionId === '')
      throw new MedusaError(MedusaError.Types.INVALID_DATA, 'initiatePayment: Medusa gave no payment session id')
    const created = await this.call('create the invoice', () =>
      this.client_.createInvoice({
        order_id: sessionId,
        amount: toDecimal(amount, currency_code),
        currency: currency_code.toUpperCase(),
        callback_url: this.options_.webhookUrl,
        ...(this.options_.service === undefined ? {} : { service: this.options_.service }),
        ...(this.options_.lifetime === undefined ? {} : { lifetime: this.options_.lifetime }),
        ...urlsOf(data),
      }),
    )
    const sessionData: SessionData = {
      session_id: sessionId,
      invoice_id: created.order_id,
      pay_url: created.pay_url,
      qr_url: created.qr_url,
      qr_image: created.qr_image,
      amount: created.amount,
      currency: currency_code.toUpperCase(),
      status: 'pending',
    }
    return { id: created.order_id, status: SESSION_STATUS.pending, data: sessionData }
  }

  /** The cart's amount changed: the pending invoice is cancelled and the session gets one for the new amount. */
  async updatePayment({ amount, currency_code, data, context }: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const current = (data ?? {}) as SessionData
    if (current.amount === toDecimal(amount, currency_code) && current.currency === currency_code.toUpperCase())
      return { status: SESSION_STATUS[current.status ?? 'pending'], data: current }
    if (current.invoice_id !== undefined) await this.cancelInvoice(current.invoice_id, ['pending'])
    return this.initiatePayment({
      amount,
      currency_code,
      data: { ...current, session_id: current.session_id },
      ...(context === undefined ? {} : { context }),
    })
  }

  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    return this.getPaymentStatus(input)
  }

  async getPaymentStatus({ data }: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const invoice = await this.readInvoice(data)
    return { status: SESSION_STATUS[invoice.status], data: { ...data, status: invoice.status } }
  }

  async retrievePayment({ data }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const invoice = await this.readInvoice(data)
    return { data: { ...data, status: invoice.status, paid_at: invoice.paid_at, credited: invoice.credited } }
  }

  /** hold → paid; an invoice already paid (the buyer paid at once, or a retry) is captured already. */
  async capturePayment({ data }: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const invoiceId = invoiceIdOf(data)
    try {
      const invoice = await this.client_.capture(invoiceId)
      return { data: { ...data, status: invoice.status } }
    } catch (err) {
      if (!isInvoiceServiceError(err, 'invalid_transition')) throw this.explain('capture the invoice', err)
      const invoice = await this.readInvoice(data)
      if (invoice.status === 'paid') return { data: { ...data, status: invoice.status } }
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `the invoice ${invoiceId} is ${invoice.status}: only a held invoice can be captured`,
      )
    }
  }

  /** pending or hold → failed; an invoice already ended without payment stays as it is. */
  async cancelPayment({ data }: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const status = await this.cancelInvoice(invoiceIdOf(data), ['pending', 'hold'])
    return { data: { ...data, status } }
  }

  /**
   * The session is dropped (another provider chosen, the cart changed): its invoice can no longer be paid, and a
   * hold on it is released rather than left to the service's hold lifetime.
   */
  async deletePayment({ data }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const invoiceId = (data as SessionData | undefined)?.invoice_id
    if (invoiceId !== undefined) await this.cancelInvoice(invoiceId, ['pending', 'hold'])
    return { data: data ?? {} }
  }

  /** A refund of a paid invoice; Medusa's refund id is the Idempotency-Key, so a retried refund is made once. */
  async refundPayment({ amount, data, context }: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const current = (data ?? {}) as SessionData
    const invoiceId = invoiceIdOf(data)
    const key = context?.idempotency_key
    if (key === undefined || key === '')
      throw new MedusaError(MedusaError.Types.INVALID_DATA, 'refundPayment: Medusa gave no idempotency key')
    const refund = await this.call('refund the invoice', () =>
      this.client_.createRefund(
        invoiceId,
        { amount: toDecimal(amount, current.currency ?? 'EUR') },
        { idempotencyKey: key },
      ),
    )
    if (refund.status === 'failed')
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `the refund of invoice ${invoiceId} failed: ${refund.failure_reason ?? 'no reason given'}`,
      )
    const refunds = [...(current.refunds ?? []), { id: refund.id, amount: refund.amount, status: refund.status }]
    return { data: { ...current, refunds } }
  }

  /**
   * The service's webhook, verified (Standard Webhooks signature over the raw body, timestamp within 5 minutes)
   * before anything else: a request that does not verify is not acted upon. Events of invoices this provider did not
   * create (another shop of the same merchant) are not either.
   */
  async getWebhookActionAndData(payload: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    const raw = payload.rawData
    if (raw === undefined || raw === null) {
      this.logger_?.warn('invoice-service webhook refused: no raw body to verify')
      return { action: PaymentActions.NOT_SUPPORTED }
    }
    let event
    try {
      event = verifyWebhook(
        raw as string | Buffer,
        payload.headers as Record<string, string>,
        this.options_.webhookSecret,
      )
    } catch (err) {
      this.logger_?.warn(`invoice-service webhook refused: ${err instanceof Error ? err.message : String(err)}`)
      return { action: PaymentActions.NOT_SUPPORTED }
    }
    const action = EVENT_ACTION[event.type]
    if (action === undefined || event.type === 'invoice.late_payment' || event.type === 'webhook.test')
      return { action: PaymentActions.NOT_SUPPORTED }
    const invoice = event.data
    if (!SESSION_ID.test(invoice.order_id)) return { action: PaymentActions.NOT_SUPPORTED }
    return { action, data: { session_id: invoice.order_id, amount: invoice.amount } }
  }

  private async readInvoice(data: Record<string, unknown> | undefined): Promise<Invoice> {
    const invoiceId = invoiceIdOf(data)
    return this.call('read the invoice', () => this.client_.getInvoice(invoiceId))
  }

  /** Cancels when the invoice is in one of `from`; returns its status after. Final statuses other than paid are fine. */
  private async cancelInvoice(invoiceId: string, from: InvoiceStatus[]): Promise<InvoiceStatus> {
    const invoice = await this.call('read the invoice', () => this.client_.getInvoice(invoiceId))
    if (invoice.status === 'failed' || invoice.status === 'expired') return invoice.status
    if (!from.includes(invoice.status))
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `the invoice ${invoiceId} is ${invoice.status}: it cannot be cancelled${invoice.status === 'paid' ? ' (refund it instead)' : ''}`,
      )
    try {
      return (await this.client_.cancel(invoiceId)).status
    } catch (err) {
      // settled meanwhile (the buyer paid, or it expired): read what it became
      if (!isInvoiceServiceError(err, 'invalid_transition')) throw this.explain('cancel the invoice', err)
      const after = await this.call('read the invoice', () => this.client_.getInvoice(invoiceId))
      if (after.status === 'failed' || after.status === 'expired') return after.status
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `the invoice ${invoiceId} is ${after.status}: not cancelled`)
    }
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      throw this.explain(what, err)
    }
  }

  /** A service error as a Medusa error that says what to fix; never the key or the secret. */
  private explain(what: string, err: unknown): MedusaError {
    if (!isInvoiceServiceError(err))
      return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `invoice-service: could not ${what}: ${String(err)}`)
    const where = `the invoice service at ${this.options_.apiUrl}`
    switch (err.code as string) {
      case 'missing_api_key':
      case 'invalid_api_key':
        return new MedusaError(
          MedusaError.Types.UNAUTHORIZED,
          `${where} refused the API key (${err.code}): check the apiKey option of the invoice-service payment provider`,
        )
      case 'merchant_disabled':
        return new MedusaError(MedusaError.Types.NOT_ALLOWED, `${where}: the merchant of this API key is disabled`)
      case 'network_error':
        return new MedusaError(
          MedusaError.Types.UNEXPECTED_STATE,
          `could not ${what}: ${where} did not answer (${err.detail}); check the apiUrl option`,
        )
      case 'unexpected_response':
        return new MedusaError(
          MedusaError.Types.UNEXPECTED_STATE,
          `could not ${what}: ${where} answered something that is not the service's API (${err.detail}); check the apiUrl option`,
        )
      case 'validation_failed':
      case 'order_id_conflict':
      case 'invalid_transition':
      case 'refund_exceeds_amount':
      case 'refund_unsupported':
        return new MedusaError(MedusaError.Types.INVALID_DATA, `could not ${what}: ${err.code}: ${err.detail}`)
      default:
        return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `could not ${what}: ${err.code}: ${err.detail}`)
    }
  }
}

function invoiceIdOf(data: Record<string, unknown> | undefined): string {
  const id = data?.['invoice_id']
  if (typeof id !== 'string' || id === '')
    throw new MedusaError(MedusaError.Types.INVALID_DATA, 'the payment has no invoice_id: not an invoice-service one')
  return id
}

/** The storefront may pass where the payment page sends the buyer back to; nothing else of its data goes out. */
function urlsOf(data: Record<string, unknown> | undefined): { success_url?: string; fail_url?: string } {
  const out: { success_url?: string; fail_url?: string } = {}
  if (typeof data?.['success_url'] === 'string') out.success_url = data['success_url']
  if (typeof data?.['fail_url'] === 'string') out.fail_url = data['fail_url']
  return out
}
