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

/** A hold at the provider: the buyer's authorised funds for one invoice. */
export interface HeldPayment {
  readonly invoiceId: InvoiceId
  readonly amount: Minor
  readonly currency: string
  readonly service: string
}

/**
 * A payment provider (acquirer). Three touch points:
 * - `createPayment` when an invoice is created → where the buyer pays and what the QR encodes;
 * - the provider's notification of the buyer's result → a status transition (the sandbox's notification is the
 *   payment page's test controls, `POST /pay/{id}/simulate`; a real acquirer would post to a webhook route that
 *   verifies its signature and calls the same transition use case);
 * - `captureHold` / `releaseHold` when the merchant settles a hold → the provider moves or releases the funds
 *   before the invoice changes status. A rejection leaves the invoice as it was.
 */
export interface PaymentProvider {
  readonly name: string
  /** Registers a payment for a new invoice. Must not block for long: it runs on the create path. */
  createPayment(request: PaymentRequest): PaymentSession
  /** Captures the held funds (hold → paid). */
  captureHold(payment: HeldPayment): Promise<void>
  /** Releases the held funds (hold → failed). */
  releaseHold(payment: HeldPayment): Promise<void>
}
