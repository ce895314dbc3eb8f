/**
 * What every fake acquirer server offers a test (test/fakes/stripe, test/fakes/yookassa): a real HTTP server that
 * speaks the acquirer's published API and keeps state, plus the controls a test needs to play the buyer, the
 * acquirer's own timers and the network between the acquirer and us. The provider conformance suite
 * (test/providers/) drives every acquirer through this one interface.
 */
export type BuyerAction = 'pay' | 'decline'

export interface FakeAcquirer {
  /** The API's base URL, e.g. http://127.0.0.1:PORT (Stripe) or http://127.0.0.1:PORT/v3 (YooKassa). */
  readonly apiUrl: string
  /** Where notifications are sent (the service's `POST /providers/{name}/notifications`); none until set. */
  setNotificationUrl(url: string | undefined): void
  /**
   * The buyer at the acquirer's hosted checkout of `checkoutId` (what the HTML page's buttons do): `pay` authorises
   * (a holding payment) or captures; `decline` fails the card, and the checkout stays open for another try.
   * Resolves after the notifications it causes were sent (or dropped, or queued while paused).
   */
  buyer(checkoutId: string, action: BuyerAction): Promise<void>
  /** The acquirer ends the checkout without money (its session expires / it cancels the unpaid payment). */
  expireCheckout(checkoutId: string): Promise<void>
  /** The acquirer lets a hold lapse on its own (its hold lifetime): the payment is cancelled and it notifies. */
  lapseHold(paymentId: string): Promise<void>
  /** The next `n` notifications are lost (never delivered); 0 stops losing them. */
  dropNotifications(n: number): void
  /**
   * With `true`, an API request's answer waits until the notifications it caused were delivered (as an acquirer's
   * may overtake its answer on the way); `false`, the default, answers at once.
   */
  notifyBeforeAnswering(on: boolean): void
  /** Notifications are queued instead of sent until `release`. */
  pauseNotifications(): void
  /** How many notifications are queued while paused. */
  queuedNotifications(): number
  /** Sends the queued notifications in the given order (indices into the queue; default: as queued), then resumes. */
  releaseNotifications(order?: readonly number[]): Promise<void>
  /** Sends every notification sent so far once more (duplicates), oldest first. */
  replayNotifications(): Promise<void>
  /** Every API request answers 503 (`'error'`), or hangs past any client timeout (`'hang'`), until `false`. */
  setDown(mode: 'error' | 'hang' | false): void
  /**
   * The acquirer refuses the next refund request outright, as it does a refund of a disputed charge (Stripe: 400
   * `charge_disputed`, https://docs.stripe.com/error-codes#charge-disputed; YooKassa: 400 `invalid_request`).
   */
  refuseNextRefund(): void
  /** The acquirer's payments as it keeps them: id, status, amount in the acquirer's units, captured/refunded. */
  payments(): readonly FakePayment[]
  /** How many payments (Stripe: Checkout Sessions) were created: an idempotency check. */
  readonly createdCount: number
  close(): Promise<void>
}

export interface FakePayment {
  /** The acquirer's payment id (Stripe: the PaymentIntent; YooKassa: the payment). */
  readonly id: string
  /** The checkout it belongs to (Stripe: the Checkout Session; YooKassa: the payment itself). */
  readonly checkoutId: string
  /** The acquirer's own status word (Stripe: requires_capture, succeeded, canceled…; YooKassa: pending…). */
  readonly status: string
  /** In the acquirer's units. */
  readonly amount: number
  readonly currency: string
  readonly refunded: number
  readonly metadata: Readonly<Record<string, string>>
}
