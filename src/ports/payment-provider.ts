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
 * - `captureHold` / `releaseHold` when the merchant settles a hold, and `releaseHold` when a hold outlives the
 *   hold lifetime → the provider moves or releases the funds before the invoice changes status. A rejection
 *   leaves the invoice as it was. The status change may start only from the hold the call was made for
 *   (app/settle-hold.ts), and a provider must refuse a call that contradicts an earlier one on the same hold (a
 *   release after a capture, or the reverse), as acquirers do: then two requests racing on one hold (a capture and
 *   a cancel, or a capture and the sweeper) cannot both settle it.
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
