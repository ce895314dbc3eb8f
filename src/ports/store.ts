import type { Invoice, InvoiceEvent, Status } from '../domain/invoice.js'
import type { InvoiceInfo } from '../domain/invoice-view.js'
import type { AdminTokenRecord } from '../domain/admin-token.js'
import type { AdminTokenId, ApiKeyId, DeliveryId, InvoiceId, MerchantId } from '../domain/ids.js'
import type {
  ClaimedDelivery,
  ClaimShare,
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  DeliveryWithAttempts,
} from '../domain/delivery.js'
import type { ApiKeyRecord, Merchant, MerchantStatus, WebhookSecret } from '../domain/merchant.js'
import type { PaymentAttempt } from '../domain/payment-attempt.js'
import type { ConsoleReader } from './console-store.js'
import type { EvmRepo } from './evm-store.js'
import type {
  RecoveryCodeRepo,
  SessionRepo,
  SignInThrottleRepo,
  UserLinkRepo,
  UserReader,
  UserRepo,
} from './user-store.js'
import type { Refund, RefundId, RefundStatus } from '../domain/refund.js'
import type { DailyTotals } from '../domain/daily-totals.js'

/** A page position for newest-first listings: the last row's (createdAt, id). */
export interface Cursor {
  readonly createdAt: Date
  readonly id: string
}

export interface InvoiceListQuery {
  readonly merchantId: MerchantId
  /** Filter by status as it reads (a pending invoice past expiry counts as expired). */
  readonly status?: Status
  readonly createdFrom?: Date
  readonly createdTo?: Date
  /** Exact service and currency (the dashboard's filters, docs/dashboard.md#invoices). */
  readonly service?: string
  readonly currency?: string
  /** An exact invoice id or order_id (the dashboard's search). */
  readonly search?: string
  /** Strictly older than this position (the next page). */
  readonly after?: Cursor
  /** Strictly newer than this position (the previous page): the `limit` rows nearest to it, still newest first. */
  readonly before?: Cursor
  readonly limit: number
  /** The time `status` is read at. */
  readonly now: Date
}

export interface InvoiceReader {
  /** The invoice with this id, whoever owns it (public pages); undefined when none. */
  findById(id: InvoiceId): Promise<Invoice | undefined>
  /** What getInfo reads of the invoice with this id, when this merchant owns it; undefined otherwise. */
  findInfo(merchantId: MerchantId, id: InvoiceId): Promise<InvoiceInfo | undefined>
  /** The newest invoice of this merchant with this order_id (docs/api.md#getinfo: getInfo by order_id reads the newest). */
  findByOrderId(merchantId: MerchantId, orderId: string): Promise<Invoice | undefined>
  /** The live invoice (pending, hold, paid) holding (merchant, order_id), if any: at most one (the partial unique index). */
  findLive(merchantId: MerchantId, orderId: string): Promise<Invoice | undefined>
  /** Newest first, at most `limit` rows. */
  list(query: InvoiceListQuery): Promise<Invoice[]>
}

export interface InvoiceRepo extends InvoiceReader {
  /** Inserts unless a live invoice (pending, hold, paid) holds the same (merchant, order_id): the unique index decides. */
  insert(inv: Invoice): Promise<'inserted' | 'live_order_exists'>
  /** Compare-and-set on status: writes `inv` only if the stored status is still `expected`. */
  update(inv: Invoice, expected: Status): Promise<boolean>
  /** Pending invoices whose `expiresAt` is at or before `now`, earliest first (the expiry sweeper). */
  listExpiredPending(now: Date, limit: number): Promise<Invoice[]>
  /** Held invoices whose `heldAt` is at or before `heldBefore`, earliest first (the hold-lifetime sweeper). */
  listStaleHolds(heldBefore: Date, limit: number): Promise<Invoice[]>
}

export interface EventRepo {
  /** Appends an outbox event; call in the transaction of the transition that caused it. */
  append(event: InvoiceEvent): Promise<void>
  /** Events of one invoice, oldest first. */
  listByInvoice(invoiceId: InvoiceId): Promise<InvoiceEvent[]>
}

export interface MerchantReader {
  findById(id: MerchantId): Promise<Merchant | undefined>
  list(): Promise<Merchant[]>
  count(): Promise<number>
}

export interface MerchantRepo extends MerchantReader {
  insert(merchant: Merchant): Promise<void>
  setStatus(id: MerchantId, status: MerchantStatus): Promise<boolean>
  /** Sets the name shown on the payment page and the default service; false when there is no such merchant. */
  setSettings(id: MerchantId, settings: Pick<Merchant, 'name' | 'defaultService'>): Promise<boolean>
}

export interface ApiKeyReader {
  /** The key with this hash and its merchant, revoked or not; undefined when no key has this hash. */
  findByHash(hash: string): Promise<{ key: ApiKeyRecord; merchant: Merchant } | undefined>
  listByMerchant(merchantId: MerchantId): Promise<ApiKeyRecord[]>
}

export interface ApiKeyRepo extends ApiKeyReader {
  insert(key: ApiKeyRecord): Promise<void>
  /**
   * Marks the key revoked at `at`; false when there is no such key (of `merchantId`, when given) or it was already
   * revoked.
   */
  revoke(id: ApiKeyId, at: Date, merchantId?: MerchantId): Promise<boolean>
  /** Moves last_used_at forward to `at` (never back: instances write it out of order). */
  markUsed(id: ApiKeyId, at: Date): Promise<void>
}

/** Operator credentials of the admin API (docs/admin-api.md#tokens). */
export interface AdminTokenReader {
  /** The token with this hash, revoked or not; undefined when none has it. */
  findByHash(hash: string): Promise<AdminTokenRecord | undefined>
  /** Every token, oldest first. */
  list(): Promise<AdminTokenRecord[]>
}

export interface AdminTokenRepo extends AdminTokenReader {
  insert(token: AdminTokenRecord): Promise<void>
  /** Marks the token revoked at `at`; false when there is no such token or it was already revoked. */
  revoke(id: AdminTokenId, at: Date): Promise<boolean>
}

export interface WebhookSecretReader {
  /** Secrets that sign now, newest first: the current one and any still in their rotation grace period. */
  listActive(merchantId: MerchantId, now: Date): Promise<WebhookSecret[]>
}

export interface WebhookSecretRepo extends WebhookSecretReader {
  insert(secret: WebhookSecret): Promise<void>
  /** Ends the grace period of every secret of the merchant that has none yet, at `expiresAt`. */
  retireCurrent(merchantId: MerchantId, expiresAt: Date): Promise<void>
}

export interface DeliveryListQuery {
  readonly merchantId: MerchantId
  readonly invoiceId?: InvoiceId
  readonly status?: DeliveryStatus
  /** Every status but this one (the dashboard's log lists failures first, then the rest). */
  readonly exceptStatus?: DeliveryStatus
  readonly after?: Cursor
  readonly limit: number
}

export interface DeliveryQueueStats {
  /** Deliveries still pending (waiting, due or in flight). */
  readonly pending: number
  /** The earliest next_attempt_at among pending deliveries that are due and not waiting behind an earlier one. */
  readonly oldestDueAt: Date | null
}

export interface DeliveryReader {
  /** The delivery with its attempts, whoever owns it; undefined when none. */
  findById(id: DeliveryId): Promise<DeliveryWithAttempts | undefined>
  /** Newest first by (created_at, id), at most `limit`, each with its attempts oldest first. */
  list(query: DeliveryListQuery): Promise<DeliveryWithAttempts[]>
  /** For the queue gauges, read on every scrape. */
  queueStats(now: Date): Promise<DeliveryQueueStats>
}

/** What an attempt changes on its delivery. */
export interface DeliveryProgress {
  readonly status: DeliveryStatus
  readonly attemptCount: number
  readonly nextAttemptAt: Date | null
  readonly updatedAt: Date
}

export interface DeliveryRepo extends DeliveryReader {
  /**
   * The delivery of a new event with its webhook body, fixed now (docs/webhooks.md#events: the invoice as it was at the
   * event); call in the transaction that appends the event (the outbox).
   */
  insert(delivery: Delivery, payload: string): Promise<void>
  /**
   * Claims due deliveries until `leaseUntil`, oldest due first, within `share` (at most `share.limit`; each
   * merchant up to `share.perMerchant` in flight by `takeFairShare`, answering ones beyond it by
   * `takeBeyondShare`), and returns them with their payload. Due:
   * pending, next_attempt_at <= now, not leased by a live claim, and no earlier delivery (by created_at, id) of
   * the same invoice still pending — the per-invoice order of docs/webhooks.md#ordering. Each merchant's due deliveries are
   * sought apart, so however long one merchant's backlog, the others' are found. Call in a transaction of its
   * own; on PostgreSQL the rows are locked FOR UPDATE SKIP LOCKED, so concurrent dispatchers (other instances)
   * claim disjoint sets.
   */
  claimDue(now: Date, leaseUntil: Date, share: ClaimShare): Promise<ClaimedDelivery[]>
  /** The earliest next_attempt_at of a pending delivery that is not due yet (after `now`); null when none. */
  nextAttemptAfter(now: Date): Promise<Date | null>
  /** Appends an attempt to the delivery's log; an attempt recorded already (same id) is left as it is. */
  addAttempt(deliveryId: DeliveryId, attempt: DeliveryAttempt): Promise<void>
  /**
   * Compare-and-set: applies `progress` and ends the lease only if the delivery is still held by this claim
   * (same lease, same attempt count) — a manual redelivery or another instance's claim in between wins.
   */
  settle(claim: ClaimedDelivery, progress: DeliveryProgress): Promise<boolean>
  /** Gives the claim back without an attempt (shutdown): the delivery is due again at once. */
  release(claim: ClaimedDelivery): Promise<boolean>
  /**
   * Gives back every claim, whoever holds it, and returns how many: only for a start where no other dispatcher
   * can be alive (SQLite, one process per database), so the claims left by a crashed process are due at once
   * instead of when their leases run out. An attempt that was under way when the process died is sent again.
   */
  releaseAll(): Promise<number>
  /**
   * Redelivery (docs/webhooks.md#redelivery): pending again, due at `now`, a new run of the schedule — unless an attempt of it is
   * under way (a live lease at `now`): that attempt is the redelivery, and requeueing would send it a second time
   * alongside. Returns whether it requeued (false also for a missing delivery).
   */
  requeue(id: DeliveryId, now: Date): Promise<boolean>
}

/** Checkout attempts at acquirers (docs/providers.md#attempts). */
export interface AttemptReader {
  /** The invoice's attempts, oldest first. */
  listByInvoice(invoiceId: InvoiceId): Promise<PaymentAttempt[]>
}

export interface AttemptRepo extends AttemptReader {
  /** The attempt with this number of the invoice. */
  find(invoiceId: InvoiceId, attempt: number): Promise<PaymentAttempt | undefined>
  /** The attempt a provider's ids name (its payment id, else its checkout id). */
  findByAcquirerId(
    provider: string,
    ids: { paymentId: string | null; checkoutId: string | null },
  ): Promise<PaymentAttempt | undefined>
  /** Inserts unless the invoice has an attempt with this number already (a concurrent Pay won the race). */
  insert(attempt: PaymentAttempt): Promise<'inserted' | 'exists'>
  /** Compare-and-set: writes `attempt` (its version one more than `expectedVersion`) only if the stored version is still that. */
  update(attempt: PaymentAttempt, expectedVersion: number): Promise<boolean>
  /**
   * Claims attempts due a check (next_check_at <= now), earliest first, at most `limit`, moving each one's
   * next_check_at to `reschedule(attempt)` and counting the check, in the caller's transaction. On PostgreSQL the rows
   * are locked FOR UPDATE SKIP LOCKED: concurrent instances claim disjoint sets, and each attempt is asked about once.
   */
  claimDue(now: Date, limit: number, reschedule: (attempt: PaymentAttempt) => Date): Promise<PaymentAttempt[]>
  /** The earliest next_check_at at or before `now` (the reconciliation lag), and how many are due. */
  dueStats(now: Date): Promise<{ readonly due: number; readonly oldestDueAt: Date | null }>
}

/** Refunds of paid invoices (docs/refunds.md). */
export interface RefundReader {
  findById(id: RefundId): Promise<Refund | undefined>
  /** The invoice's refunds, oldest first. */
  listByInvoice(invoiceId: InvoiceId): Promise<Refund[]>
  /** The merchant's refund made with this Idempotency-Key. */
  findByKey(merchantId: MerchantId, idempotencyKey: string): Promise<Refund | undefined>
  /** The refund with this acquirer refund id at this provider (a notification names it). */
  findByProviderRefundId(provider: string, providerRefundId: string): Promise<Refund | undefined>
}

export interface RefundRepo extends RefundReader {
  /**
   * The invoice, locked against every other reservation of a refund on it until this transaction ends
   * (PostgreSQL: `FOR UPDATE`; SQLite's write transaction is serial already): the sum of its refunds read after this
   * cannot change before the insert commits (docs/refunds.md#concurrency).
   */
  lockInvoice(id: InvoiceId): Promise<Invoice | undefined>
  /** Inserts unless the merchant has a refund with this Idempotency-Key already (the unique index decides). */
  insert(refund: Refund): Promise<'inserted' | 'key_exists'>
  /**
   * Compare-and-set on status: writes `refund` only if the stored status is still `before.status` (`before`: the refund
   * as read in this transaction). A succeeded refund that fails leaves the daily totals of the day it succeeded
   * (`before.updatedAt`).
   */
  update(refund: Refund, before: Pick<Refund, 'status' | 'updatedAt'>): Promise<boolean>
  /**
   * Claims pending refunds due a check (next_check_at <= now), earliest first, at most `limit`, moving each one's
   * next check to `reschedule(refund)` and counting the check, in the caller's transaction; on PostgreSQL locked
   * `FOR UPDATE SKIP LOCKED`, so concurrent instances claim disjoint sets.
   */
  claimDue(now: Date, limit: number, reschedule: (refund: Refund) => Date): Promise<Refund[]>
  /** The sandbox's test control (docs/refunds.md#sandbox): the invoice's next refund fails. */
  armSandboxFailure(invoiceId: InvoiceId, now: Date): Promise<void>
  /** Takes the control if it is armed: true once, then false until armed again. */
  takeSandboxFailure(invoiceId: InvoiceId): Promise<boolean>
}

/**
 * The dashboard's daily totals (docs/dashboard.md#daily-totals). The adapter keeps them itself: every status change
 * written by `InvoiceRepo.update` and every refund that `RefundRepo` records as succeeded moves them in the same
 * transaction, so they never drift from the invoices. Days are UTC days since 1970-01-01.
 */
export interface DailyTotalsReader {
  /** The merchant's rows of the days fromDay..toDay (inclusive), any order. */
  list(merchantId: MerchantId, fromDay: number, toDay: number): Promise<DailyTotals[]>
  /** The created counts kept for ended days of fromDay..toDay, by day (a day not kept yet is absent). */
  createdByDay(merchantId: MerchantId, fromDay: number, toDay: number): Promise<Map<number, number>>
  /** How many invoices the merchant created in [from, until): a range of the invoices' (merchant, created_at) index. */
  countCreated(merchantId: MerchantId, from: Date, until: Date): Promise<number>
  /** Pending invoices created from `createdFrom` on that read expired at `now` but were not swept yet. */
  countUnsweptExpired(merchantId: MerchantId, createdFrom: Date, now: Date): Promise<number>
}

export interface DailyTotalsRepo extends DailyTotalsReader {
  /** Keeps the created counts of ended days (a day kept already stays as it is). */
  keepCreated(merchantId: MerchantId, counts: ReadonlyMap<number, number>): Promise<void>
}

/** Everything one transaction can touch. */
export interface Tx {
  readonly invoices: InvoiceRepo
  readonly events: EventRepo
  readonly merchants: MerchantRepo
  readonly apiKeys: ApiKeyRepo
  readonly webhookSecrets: WebhookSecretRepo
  readonly deliveries: DeliveryRepo
  readonly attempts: AttemptRepo
  /** The `evm` provider's deposits, transfers and sweeps (docs/stablecoins.md). */
  readonly evm: EvmRepo
  readonly adminTokens: AdminTokenRepo
  readonly users: UserRepo
  readonly userLinks: UserLinkRepo
  readonly recoveryCodes: RecoveryCodeRepo
  readonly sessions: SessionRepo
  readonly signInThrottle: SignInThrottleRepo
  readonly refunds: RefundRepo
  readonly dailyTotals: DailyTotalsRepo
}

/** The storage port; adapters: SQLite (embedded default) and PostgreSQL. */
export interface Store {
  /** Runs `fn` in one transaction: all its writes commit together or none do. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /**
   * `InvoiceRepo.insert` as a transaction of its own, run as the one statement it is: durable once it resolves
   * 'inserted'. Only where that is cheaper than `transaction`: PostgreSQL (one round trip, not BEGIN, INSERT,
   * COMMIT) and SQLite (the statement joins the open group-commit batch without a savepoint).
   */
  readonly insertInvoice?: (inv: Invoice) => Promise<'inserted' | 'live_order_exists'>
  readonly invoices: InvoiceReader
  readonly events: Pick<EventRepo, 'listByInvoice'>
  readonly merchants: MerchantReader
  /** Keys are read on every uncached API request; last-used is written beside it, outside a transaction. */
  readonly apiKeys: ApiKeyReader & Pick<ApiKeyRepo, 'markUsed'>
  readonly webhookSecrets: WebhookSecretReader
  readonly deliveries: DeliveryReader
  readonly attempts: AttemptReader & Pick<AttemptRepo, 'dueStats'>
  readonly evm: EvmRepo
  readonly adminTokens: AdminTokenReader
  readonly users: UserReader
  /** Sessions are read on every dashboard request, outside a transaction. */
  readonly sessions: Pick<SessionRepo, 'findByHash' | 'touch'>
  readonly refunds: RefundReader
  /** The operator console's reads across every merchant (docs/dashboard.md#operator-console). */
  readonly console: ConsoleReader
  readonly dailyTotals: DailyTotalsReader
  /** Applies pending migrations; idempotent. */
  migrate(): Promise<void>
  /**
   * Refreshes the query planner's statistics where the database does not do it itself (SQLite: `PRAGMA optimize`;
   * PostgreSQL's autovacuum analyzes on its own). Run after migrate and then every hour: without them SQLite cannot
   * tell a selective index from another, and a list filtered twice may walk the wrong one.
   */
  optimize(): Promise<void>
  /** Resolves when the database answers a trivial query and can take writes now (readiness); rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

/** Thrown by adapters when the database cannot be reached or written; mapped to 503 `unavailable`. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}
