/** The operator console's reads across every merchant (docs/dashboard.md#operator-console). */
import type { Invoice } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'

/** A merchant with what the console's list shows beside it. */
export interface MerchantSummary {
  readonly merchant: Merchant
  /** API keys not revoked. */
  readonly activeKeys: number
  /** Dashboard users of the merchant. */
  readonly users: number
}

/** A callback endpoint with deliveries that keep failing. */
export interface FailingEndpoint {
  readonly merchantId: string
  readonly url: string
  /** Its pending deliveries (of the window read) that have failed at least once. */
  readonly failing: number
}

/**
 * The webhook queue as the console shows it, its work bounded whatever the size of the table: the counts stop at
 * `cap` (a count of `cap` reads "cap or more"), and the failing ones are sought among the `window` next due.
 */
export interface DeliveryHealth {
  /** Pending deliveries (waiting, due or in flight), up to `cap`. */
  readonly pending: number
  /** Of the `window` pending deliveries due first, those with a failed attempt in their current run. */
  readonly failing: number
  /** Deliveries that used up the retry schedule (status failed), up to `cap`. */
  readonly dead: number
  /** The earliest next attempt of a pending delivery that is due now; null when none is due. */
  readonly oldestDueAt: Date | null
  readonly cap: number
  readonly window: number
  /** The endpoints with the most failing deliveries, most first. */
  readonly failingEndpoints: readonly FailingEndpoint[]
}

export interface ConsoleReader {
  /** Every merchant, oldest first, with its counts of active keys and users. */
  merchantSummaries(): Promise<MerchantSummary[]>
  /** Invoices with this order_id at any merchant, newest first, at most `limit`: one index seek per merchant. */
  invoicesByOrderId(orderId: string, limit: number): Promise<Invoice[]>
  /** The webhook queue's counts, bounded by `cap` and `window`, and the `endpoints` endpoints failing most. */
  deliveryHealth(now: Date, cap: number, window: number, endpoints: number): Promise<DeliveryHealth>
  /** Pending refunds due a reconciliation check at `now`: how many, and the earliest due time. */
  refundDueStats(now: Date): Promise<{ readonly due: number; readonly oldestDueAt: Date | null }>
}
