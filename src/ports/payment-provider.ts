import type { Minor } from '../domain/money.js'
import type { InvoiceId } from '../domain/ids.js'

export interface PaymentRequest {
  readonly invoiceId: InvoiceId
  readonly amount: Minor
  readonly currency: string
  readonly service: string
  /** The hosted payment page of this invoice. */
  readonly payUrl: string
}

export interface PaymentSession {
  /** Where the buyer pays (the invoice's `url`). */
  readonly url: string
  /** What the QR code encodes (the invoice's `qr_data`). */
  readonly qrData: string
}

/**
 * A payment provider (acquirer). The built-in sandbox answers with the hosted page; a real acquirer adapter
 * would register a payment with its API here and report results through notifications (lifecycle issue).
 */
export interface PaymentProvider {
  readonly name: string
  /** Registers a payment for a new invoice. Must not block for long: it runs on the create path. */
  createPayment(request: PaymentRequest): PaymentSession
}
