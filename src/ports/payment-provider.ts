import type { Minor } from '../domain/money.js'
import type { InvoiceId } from '../domain/ids.js'
import type { Deposit } from '../domain/evm-deposit.js'

/**
 * The payment-provider port (docs/providers.md). Each configured service is bound to one provider; the registry
 * (adapters/providers/registry.ts) picks it. Use cases only ever see this interface: there is no
 * `if (provider === 'stripe')` outside adapters/providers/.
 *
 * Every amount crossing this port is in *our* minor units (the currency's ISO 4217 exponent, `exponent`); an
 * adapter converts to and from its acquirer's own units (Stripe's zero-decimal and special-case currencies).
 *
 * Errors: an adapter throws `AppError('provider_error', …)` when the acquirer refused the request (its message,
 * never the credentials) and `AppError('provider_unavailable', …)` on a timeout, a network error or a 5xx. The
 * caller then changes nothing.
 */

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

/** A new invoice at a provider that is paid to an address of the invoice's own (`evm`: docs/stablecoins.md). */
export interface DepositRequest extends PaymentRequest {
  /** The merchant's payout address for the service (`merchant set-payout`): the deposit can only forward there. */
  readonly payout: string
  readonly expiresAt: Date
  readonly now: Date
}

/**
 * A provider whose buyers pay to a deposit address per invoice rather than at a checkout: create looks the merchant's
 * payout address up and stores the deposit with the invoice. Local and quick, as `createPayment`. Throws
 * `validation_failed` when the amount cannot be paid in the token's units.
 */
/** The token a deposit service is paid in, on its chain. */
export interface DepositToken {
  readonly chainId: number
  /** The token contract, checksummed. */
  readonly token: string
  readonly decimals: number
  /** Confirmations a transfer needs before it counts. */
  readonly confirmations: number
}

export interface DepositScheme {
  /** The token of a service bound to this provider; undefined for another service. */
  tokenOf(service: string): DepositToken | undefined
  /** A payout address as the chain spells it (checksummed), or undefined when it is not one (or the zero address). */
  payoutAddress(text: string): string | undefined
  prepare(request: DepositRequest): { readonly session: PaymentSession; readonly deposit: Deposit }
}

/** What a provider can do; the app asks these, never the provider's name. */
export interface ProviderCapabilities {
  /** The buyer pays at the acquirer's hosted checkout: the payment page shows Pay (`POST /pay/{id}/checkout`). */
  readonly checkout: boolean
  /** The payment page's test controls (`POST /pay/{id}/simulate`) act on this provider's invoices: the sandbox only. */
  readonly simulate: boolean
  /** Funds can be held (authorised) and captured or released later. */
  readonly hold: boolean
  /** A captured payment can be refunded, in full or in part. */
  readonly refund: boolean
  /** A payment can be fetched by its id (reconciliation, verification of unsigned notifications). */
  readonly fetch: boolean
}

/** Our reference of one checkout attempt, carried in the acquirer's metadata and echoed back in its updates. */
export interface AttemptReference {
  readonly invoiceId: InvoiceId
  /** 1, 2, …: a new attempt may follow one that the acquirer ended while the invoice is pending. */
  readonly attempt: number
}

export interface CheckoutRequest {
  readonly reference: AttemptReference
  /** The acquirer's idempotency key for creating this attempt's payment: the same key, the same acquirer payment. */
  readonly idempotencyKey: string
  readonly amount: Minor
  readonly currency: string
  /** The currency's exponent in our minor units (ISO 4217): amount 1050 with exponent 2 is 10.50. */
  readonly exponent: number
  readonly service: string
  /** Authorise only (the service is configured to hold): the merchant captures or cancels later. */
  readonly hold: boolean
  /** Shown to the buyer at the acquirer (the invoice's comment, or the order id). */
  readonly description: string
  /** Our payment page: the acquirer sends the buyer back here whatever the outcome. */
  readonly returnUrl: string
  /** The invoice's expiry: the acquirer's session is made to end no later, where the acquirer allows it. */
  readonly expiresAt: Date
  readonly now: Date
}

export interface CheckoutStarted {
  /** The acquirer's id of what was created (Stripe: the Checkout Session; YooKassa: the payment). */
  readonly checkoutId: string
  /** The acquirer's payment id when known already (YooKassa: the same as checkoutId; Stripe: null until paid). */
  readonly paymentId: string | null
  /** The acquirer's hosted checkout: the buyer is sent here (303). */
  readonly redirectUrl: string
}

/**
 * Where an acquirer payment stands, in the acquirer-neutral terms the app maps to invoice statuses
 * (docs/providers.md#status-mapping):
 * - `open`: created, the buyer has not finished (a declined card leaves it open: the buyer may try again);
 * - `held`: authorised, waiting for capture or release;
 * - `succeeded`: captured; the money is the merchant's;
 * - `canceled`: voided or released (from `held`: the hold is over), or the acquirer cancelled it before payment;
 * - `ended`: the attempt ended without money (its checkout session expired); a new attempt may follow.
 */
export type AcquirerPaymentState = 'open' | 'held' | 'succeeded' | 'canceled' | 'ended'

/** An acquirer's word on one payment, from a verified notification or a fetch. */
export interface PaymentUpdate {
  /** Ours, from the payment's metadata; undefined when the payment carries none (not one of ours). */
  readonly reference: AttemptReference | undefined
  readonly checkoutId: string | null
  readonly paymentId: string | null
  readonly state: AcquirerPaymentState
  /** What the acquirer holds or took, in our minor units; null when it does not say (a session that expired). */
  readonly amount: Minor | null
  readonly currency: string | null
}

/** A notification as it arrived at `POST /providers/{provider}/notifications`. */
export interface IncomingNotification {
  /** The body's exact bytes (a signature is over them). */
  readonly rawBody: Buffer
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The sender's address, as `TRUST_PROXY` resolves it. */
  readonly remoteAddress: string
  readonly now: Date
}

/**
 * What a notification says once verified:
 * - `update`: a payment changed; the app applies it;
 * - `refund`: a refund changed; the app applies it to the refund it knows by the acquirer's refund id;
 * - `ignored`: verified, but nothing we act on (an event type outside the mapping); acknowledged.
 * A notification that fails verification throws `NotificationRejected`; nothing changes.
 */
export type NotificationOutcome =
  | { readonly kind: 'update'; readonly update: PaymentUpdate; readonly event: string }
  /** A refund changed (docs/refunds.md#outcomes): the app applies it to the refund with this acquirer id. */
  | { readonly kind: 'refund'; readonly refund: RefundResult; readonly event: string }
  | { readonly kind: 'ignored'; readonly event: string }

/** A notification that failed verification: 401 when its signature or sender is wrong, 400 when it is malformed. */
export class NotificationRejected extends Error {
  constructor(
    readonly status: 400 | 401,
    message: string,
  ) {
    super(message)
    this.name = 'NotificationRejected'
  }
}

/** A payment at the acquirer, as the app knows it (an attempt's ids). */
export interface PaymentRef {
  readonly checkoutId: string | null
  readonly paymentId: string | null
}

/** A hold at the provider: the buyer's authorised funds for one invoice. */
export interface HeldPayment extends PaymentRef {
  readonly invoiceId: InvoiceId
  readonly amount: Minor
  readonly currency: string
  readonly exponent: number
  readonly service: string
  /** The acquirer's idempotency key for this operation (one per capture, one per release). */
  readonly idempotencyKey: string
}

export interface RefundRequest extends PaymentRef {
  readonly invoiceId: InvoiceId
  readonly amount: Minor
  readonly currency: string
  readonly exponent: number
  readonly idempotencyKey: string
  readonly reason: string | null
  /**
   * The sandbox's test control (docs/refunds.md#sandbox): the merchant armed it, so this refund is to be refused.
   * Only a provider with the `simulate` capability is ever given it.
   */
  readonly simulateFailure?: boolean
}

export interface RefundResult {
  /** The acquirer's refund id. */
  readonly refundId: string
  /** `succeeded` once the acquirer says so; `pending` while it processes. */
  readonly state: 'pending' | 'succeeded' | 'failed'
  /** Why a `failed` refund failed, in the acquirer's words (never its credentials). */
  readonly failureReason?: string
}

/**
 * A payment provider (acquirer). Touch points:
 * - `createPayment` when an invoice is created: local, no network (docs/api.md#create-an-invoice: create never
 *   waits for an acquirer) → where the buyer pays and what the QR encodes;
 * - `startCheckout` when the buyer presses Pay on our page → the acquirer's hosted checkout (idempotent per key);
 * - `verifyNotification` for `POST /providers/{name}/notifications` → a verified update, or NotificationRejected;
 * - `fetchPayment` for reconciliation (and for verifying unsigned notifications inside the adapter);
 * - `captureHold` / `releaseHold` when the merchant settles a hold, or a hold outlives the hold lifetime, and
 *   `refund` → the acquirer moves the funds before the invoice changes. A rejection leaves the invoice as it was.
 *   A provider must refuse a call that contradicts an earlier one on the same hold (a release after a capture),
 *   as acquirers do: then two requests racing on one hold cannot both settle it (app/settle-hold.ts).
 */
export interface PaymentProvider {
  readonly name: string
  readonly capabilities: ProviderCapabilities
  /**
   * The origins of the acquirer's hosted checkout (`https://checkout.stripe.com`): the payment page's
   * Content-Security-Policy lets its Pay form be redirected there, and nowhere else. Empty without a checkout.
   */
  readonly checkoutOrigins: readonly string[]
  /** Currencies this acquirer takes; undefined = every enabled currency. A create in another one is refused. */
  readonly currencies: readonly string[] | undefined
  /** Present when the provider is paid to deposit addresses (`evm`); create then uses it instead of createPayment. */
  readonly deposits?: DepositScheme
  /** Registers a payment for a new invoice. Local and quick: it runs on the create path. */
  createPayment(request: PaymentRequest): PaymentSession
  startCheckout(request: CheckoutRequest): Promise<CheckoutStarted>
  verifyNotification(notification: IncomingNotification): Promise<NotificationOutcome>
  /** Where the payment stands now; `reference` from its metadata. */
  fetchPayment(ref: PaymentRef, reference: AttemptReference): Promise<PaymentUpdate>
  /**
   * Ends an open checkout early, where the acquirer allows it (the invoice expired or was cancelled): the buyer can
   * no longer pay there. A checkout already paid or ended is left as it is. Money that still arrives is a late
   * payment (docs/providers.md#late-payments).
   */
  endCheckout(ref: PaymentRef): Promise<void>
  /** Captures the held funds (hold → paid). */
  captureHold(payment: HeldPayment): Promise<void>
  /** Releases the held funds (hold → failed, or a late hold voided). */
  releaseHold(payment: HeldPayment): Promise<void>
  /**
   * Refunds (part of) a captured payment, with the request's idempotency key: the same key, the same acquirer refund
   * (reconciliation asks again with it when an earlier answer was lost). Throws `provider_error` when the acquirer
   * refused, `provider_unavailable` when it did not answer.
   */
  refund(request: RefundRequest): Promise<RefundResult>
  /** Where an acquirer refund stands now, by its id (reconciliation of a refund the acquirer said was pending). */
  fetchRefund(refundId: string): Promise<RefundResult>
}

/** Which provider serves each service (adapters/providers/registry.ts; docs/providers.md#configuration). */
export interface ProviderRegistry {
  /** The provider bound to this service; the sandbox for a service bound to none (or no longer configured). */
  forService(service: string): PaymentProvider
  /** A configured provider by its name (a notification's route, an attempt's own provider). */
  byName(name: string): PaymentProvider | undefined
  /** HOLD_SERVICES: whether the service's acquirer payments are authorised only, for the merchant to settle. */
  holds(service: string): boolean
}
