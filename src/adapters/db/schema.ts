/**
 * Row shapes of the current schema and their mapping to domain objects. Row shapes never leave adapters/db
 * (docs/architecture.md#wire-shapes-and-row-shapes); the domain sees only `Invoice`, `Merchant`, … .
 *
 * Every time is an integer of epoch milliseconds, every amount an integer of minor units (INTEGER on SQLite,
 * BIGINT on PostgreSQL). A PostgreSQL adapter must parse int8 as a JS number (values stay within
 * Number.MAX_SAFE_INTEGER; amounts are below domain/money.ts MAX_MINOR), so these row types hold for both databases.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { ApiKeyId, EventId, InvoiceId, MerchantId } from '../../domain/ids.js'
import type { Invoice, InvoiceEvent, InvoiceEventType, Status } from '../../domain/invoice.js'
import type { InvoiceInfo } from '../../domain/invoice-view.js'
import type { ApiKeyRecord, Merchant, MerchantStatus, WebhookSecret } from '../../domain/merchant.js'
import type { Minor } from '../../domain/money.js'

/** The databases the migrations and queries are written for; used only where their SQL must differ. */
export type SqlDialect = 'sqlite' | 'postgres'

/** Epoch milliseconds. */
type Millis = number

export interface MerchantRow {
  id: string
  name: string
  default_service: string
  status: string
  created_at: Millis
}

export interface ApiKeyRow {
  id: string
  merchant_id: string
  hash: string
  prefix: string
  name: string | null
  created_at: Millis
  revoked_at: Millis | null
  last_used_at: Millis | null
}

export interface WebhookSecretRow {
  id: string
  merchant_id: string
  secret: string
  created_at: Millis
  expires_at: Millis | null
}

export interface InvoiceRow {
  id: string
  merchant_id: string
  order_id: string
  amount: number
  currency: string
  status: string
  service: string
  comment: string | null
  callback_url: string | null
  success_url: string | null
  fail_url: string | null
  pay_url: string
  qr_data: string
  credited: number | null
  /** null on invoices made before migration 004 */
  fee: number | null
  expires_at: Millis
  paid_at: Millis | null
  held_at: Millis | null
  created_at: Millis
  updated_at: Millis
  /** migration 007: an on-time payment is confirming (docs/stablecoins.md#states); null otherwise */
  payment_seen_at: Millis | null
}

export interface EventRow {
  id: string
  invoice_id: string
  merchant_id: string
  type: string
  created_at: Millis
}

/** A webhook delivery (migration 002): one per event of an invoice with a callback_url. */
export interface DeliveryRow {
  id: string
  event_id: string
  invoice_id: string
  merchant_id: string
  url: string
  type: string
  /** The webhook body, fixed when the event was written: every attempt sends the same bytes. */
  payload: string
  status: string
  attempt_count: number
  next_attempt_at: Millis | null
  /** A dispatcher's claim: the delivery is in flight until then. */
  lease_until: Millis | null
  created_at: Millis
  updated_at: Millis
}

export interface DeliveryAttemptRow {
  id: string
  delivery_id: string
  at: Millis
  status_code: number | null
  latency_ms: number
  error: string | null
}

/** A checkout attempt at an acquirer (migration 005). */
export interface PaymentAttemptRow {
  id: string
  invoice_id: string
  attempt: number
  provider: string
  checkout_id: string | null
  payment_id: string | null
  redirect_url: string | null
  state: string
  amount: number | null
  late_action: string | null
  next_check_at: Millis | null
  checks: number
  version: number
  created_at: Millis
  updated_at: Millis
}

export interface AdminTokenRow {
  id: string
  name: string
  hash: string
  prefix: string
  created_at: Millis
  revoked_at: Millis | null
}

export interface UserRow {
  id: string
  merchant_id: string | null
  email: string
  role: string
  password_hash: string | null
  totp_secret: string | null
  totp_enabled_at: Millis | null
  totp_last_step: number | null
  password_changed_at: Millis | null
  created_at: Millis
}

export interface UserLinkRow {
  id: string
  user_id: string
  purpose: string
  hash: string
  created_at: Millis
  expires_at: Millis
  used_at: Millis | null
}

export interface RecoveryCodeRow {
  id: string
  user_id: string
  hash: string
  used_at: Millis | null
}

export interface SessionRow {
  id: string
  hash: string
  user_id: string
  stage: string
  csrf_token: string
  created_at: Millis
  last_seen_at: Millis
  ended_at: Millis | null
}

export interface SignInFailureRow {
  key: string
  window_start: Millis
  failures: number
}

/** A refund of a paid invoice (migration 006). */
export interface RefundRow {
  id: string
  invoice_id: string
  merchant_id: string
  provider: string
  amount: number
  currency: string
  status: string
  reason: string | null
  failure_reason: string | null
  provider_refund_id: string | null
  idempotency_key: string
  request_hash: string
  checks: number
  next_check_at: Millis | null
  created_at: Millis
  updated_at: Millis
}

/** The sandbox's test control: the next refund of this invoice fails (migration 006). */
export interface SandboxRefundFailureRow {
  invoice_id: string
  created_at: Millis
}

/** Kysely's view of the database. No column is generated: the application supplies every value. */
export interface Database {
  merchants: MerchantRow
  api_keys: ApiKeyRow
  webhook_secrets: WebhookSecretRow
  invoices: InvoiceRow
  events: EventRow
  deliveries: DeliveryRow
  delivery_attempts: DeliveryAttemptRow
  payment_attempts: PaymentAttemptRow
  evm_payouts: EvmPayoutRow
  evm_deposits: EvmDepositRow
  evm_cursors: EvmCursorRow
  evm_transfers: EvmTransferRow
  evm_sweeps: EvmSweepRow
  admin_tokens: AdminTokenRow
  users: UserRow
  user_links: UserLinkRow
  recovery_codes: RecoveryCodeRow
  sessions: SessionRow
  sign_in_failures: SignInFailureRow
  refunds: RefundRow
  sandbox_refund_failures: SandboxRefundFailureRow
  daily_totals: DailyTotalsRow
  daily_created: DailyCreatedRow
}

/** docs/dashboard.md#daily-totals: one merchant's figures of one UTC day (days since 1970-01-01) in one currency. */
export interface DailyTotalsRow {
  merchant_id: string
  day: number
  currency: string
  now_hold: number
  now_paid: number
  now_failed: number
  now_expired: number
  paid_count: number
  paid_amount: number
  credited_amount: number
  refunded_amount: number
}

/** The invoices a merchant created on a day that has ended: kept once, as it can no longer change. */
export interface DailyCreatedRow {
  merchant_id: string
  day: number
  created: number
}

/**
 * The predicate of the partial unique index `invoices_live_order_key` (migration 001), repeated verbatim as
 * the ON CONFLICT target of the insert. It must be literal SQL, not bound parameters: SQLite matches the
 * conflict target to the index by comparing the expressions structurally (same order, no `?`), and
 * PostgreSQL must be able to prove it implies the index predicate at plan time.
 */
export const LIVE_ORDER_PREDICATE: RawBuilder<SqlBool> = sql<SqlBool>`status in ('pending', 'hold', 'paid')`

/**
 * The predicate of `invoices_order_not_live_idx` (migration 012), repeated verbatim where a lookup reads it: the
 * invoices of an order that are not live. No index holds every invoice of an order: a lookup by order reads the
 * live one (LIVE_ORDER_PREDICATE, at most one) and these, and their union is all of them. Literal for the same
 * reason: SQLite uses a partial index only for a query whose WHERE holds the index's own terms.
 */
const NOT_LIVE_ORDER_PREDICATE: RawBuilder<SqlBool> = sql<SqlBool>`status not in ('pending', 'hold', 'paid')`

/**
 * Every invoice of the orders a lookup asks for, as the UNION ALL of its two sides: `side` builds the select of one
 * side given its predicate, once live (LIVE_ORDER_PREDICATE, read from invoices_live_order_key) and once not
 * (NOT_LIVE_ORDER_PREDICATE, from invoices_order_not_live_idx). Every lookup by order goes through here; the caller
 * orders the union.
 */
export function bothOrderSides<Q extends { unionAll(other: Q): Q }>(side: (predicate: RawBuilder<SqlBool>) => Q): Q {
  return side(LIVE_ORDER_PREDICATE).unionAll(side(NOT_LIVE_ORDER_PREDICATE))
}

// Explicit column lists: no `select *`, so a later added column costs nothing until a reader asks for it.
export const MERCHANT_COLUMNS = [
  'id',
  'name',
  'default_service',
  'status',
  'created_at',
] as const satisfies readonly (keyof MerchantRow)[]
export const API_KEY_COLUMNS = [
  'id',
  'merchant_id',
  'hash',
  'prefix',
  'name',
  'created_at',
  'revoked_at',
  'last_used_at',
] as const satisfies readonly (keyof ApiKeyRow)[]
export const WEBHOOK_SECRET_COLUMNS = [
  'merchant_id',
  'secret',
  'created_at',
  'expires_at',
] as const satisfies readonly (keyof WebhookSecretRow)[]
export const EVENT_COLUMNS = [
  'id',
  'invoice_id',
  'merchant_id',
  'type',
  'created_at',
] as const satisfies readonly (keyof EventRow)[]
export const INVOICE_COLUMNS = [
  'id',
  'merchant_id',
  'order_id',
  'amount',
  'currency',
  'status',
  'service',
  'comment',
  'callback_url',
  'success_url',
  'fail_url',
  'pay_url',
  'qr_data',
  'credited',
  'fee',
  'expires_at',
  'paid_at',
  'held_at',
  'created_at',
  'updated_at',
  'payment_seen_at',
] as const satisfies readonly (keyof InvoiceRow)[]

/**
 * What getInfo reads of an invoice (InvoiceReader.findInfo): its view's sources, without the two ids the lookup
 * is made by. 12 of the 21 columns: each text column read is a string made (docs/performance.md#getinfos-read).
 */
export const INVOICE_INFO_COLUMNS = [
  'order_id',
  'amount',
  'currency',
  'status',
  'service',
  'pay_url',
  'qr_data',
  'credited',
  'expires_at',
  'paid_at',
  'created_at',
  'payment_seen_at',
] as const satisfies readonly (typeof INVOICE_COLUMNS)[number][]

const ms = (d: Date): Millis => d.getTime()
const msOrNull = (d: Date | null): Millis | null => (d === null ? null : d.getTime())
const dateOrNull = (v: Millis | null): Date | null => (v === null ? null : new Date(v))

export function merchantToRow(m: Merchant): MerchantRow {
  return { id: m.id, name: m.name, default_service: m.defaultService, status: m.status, created_at: ms(m.createdAt) }
}

export function rowToMerchant(r: Pick<MerchantRow, (typeof MERCHANT_COLUMNS)[number]>): Merchant {
  return {
    id: r.id as MerchantId,
    name: r.name,
    defaultService: r.default_service,
    status: r.status as MerchantStatus,
    createdAt: new Date(r.created_at),
  }
}

export function apiKeyToRow(k: ApiKeyRecord): ApiKeyRow {
  return {
    id: k.id,
    merchant_id: k.merchantId,
    hash: k.hash,
    prefix: k.prefix,
    name: k.name,
    created_at: ms(k.createdAt),
    revoked_at: msOrNull(k.revokedAt),
    last_used_at: msOrNull(k.lastUsedAt),
  }
}

export function rowToApiKey(r: Pick<ApiKeyRow, (typeof API_KEY_COLUMNS)[number]>): ApiKeyRecord {
  return {
    id: r.id as ApiKeyId,
    merchantId: r.merchant_id as MerchantId,
    hash: r.hash,
    prefix: r.prefix,
    name: r.name,
    createdAt: new Date(r.created_at),
    revokedAt: dateOrNull(r.revoked_at),
    lastUsedAt: dateOrNull(r.last_used_at),
  }
}

/** The domain's secret has no identity of its own; the row's surrogate key is supplied by the adapter. */
export function webhookSecretToRow(s: WebhookSecret, id: string): WebhookSecretRow {
  return {
    id,
    merchant_id: s.merchantId,
    secret: s.secret,
    created_at: ms(s.createdAt),
    expires_at: msOrNull(s.expiresAt),
  }
}

export function rowToWebhookSecret(r: Pick<WebhookSecretRow, (typeof WEBHOOK_SECRET_COLUMNS)[number]>): WebhookSecret {
  return {
    merchantId: r.merchant_id as MerchantId,
    secret: r.secret,
    createdAt: new Date(r.created_at),
    expiresAt: dateOrNull(r.expires_at),
  }
}

export function invoiceToRow(i: Invoice): InvoiceRow {
  return {
    id: i.id,
    merchant_id: i.merchantId,
    order_id: i.orderId,
    amount: i.amount,
    currency: i.currency,
    status: i.status,
    service: i.service,
    comment: i.comment,
    callback_url: i.callbackUrl,
    success_url: i.successUrl,
    fail_url: i.failUrl,
    pay_url: i.payUrl,
    qr_data: i.qrData,
    credited: i.credited,
    fee: i.fee,
    expires_at: ms(i.expiresAt),
    paid_at: msOrNull(i.paidAt),
    held_at: msOrNull(i.heldAt),
    created_at: ms(i.createdAt),
    updated_at: ms(i.updatedAt),
    payment_seen_at: msOrNull(i.paymentSeenAt ?? null),
  }
}

/** A whole invoice: what getInfo reads of it (rowToInvoiceInfo), and the rest. */
export function rowToInvoice(r: Pick<InvoiceRow, (typeof INVOICE_COLUMNS)[number]>): Invoice {
  return {
    ...rowToInvoiceInfo(r, r.id as InvoiceId, r.merchant_id as MerchantId),
    comment: r.comment,
    callbackUrl: r.callback_url,
    successUrl: r.success_url,
    failUrl: r.fail_url,
    fee: r.fee as Minor | null,
    heldAt: dateOrNull(r.held_at),
    updatedAt: new Date(r.updated_at),
  }
}

/** The invoice `id` of merchant `merchantId` as getInfo reads it, from its INVOICE_INFO_COLUMNS. */
export function rowToInvoiceInfo(
  r: Pick<InvoiceRow, (typeof INVOICE_INFO_COLUMNS)[number]>,
  id: InvoiceId,
  merchantId: MerchantId,
): InvoiceInfo {
  return {
    id,
    merchantId,
    orderId: r.order_id,
    amount: r.amount as Minor,
    currency: r.currency,
    status: r.status as Status,
    service: r.service,
    payUrl: r.pay_url,
    qrData: r.qr_data,
    credited: r.credited as Minor | null,
    expiresAt: new Date(r.expires_at),
    paidAt: dateOrNull(r.paid_at),
    createdAt: new Date(r.created_at),
    ...(r.payment_seen_at !== null && { paymentSeenAt: new Date(Number(r.payment_seen_at)) }),
  }
}

export function eventToRow(e: InvoiceEvent): EventRow {
  return { id: e.id, invoice_id: e.invoiceId, merchant_id: e.merchantId, type: e.type, created_at: ms(e.createdAt) }
}

export function rowToEvent(r: Pick<EventRow, (typeof EVENT_COLUMNS)[number]>): InvoiceEvent {
  return {
    id: r.id as EventId,
    invoiceId: r.invoice_id as InvoiceId,
    merchantId: r.merchant_id as MerchantId,
    type: r.type as InvoiceEventType,
    createdAt: new Date(r.created_at),
  }
}

/** Migration 007 (docs/stablecoins.md): payout addresses, deposits, the detector's cursors, transfers, sweeps. */
export interface EvmPayoutRow {
  merchant_id: string
  service: string
  address: string
  updated_at: Millis
}

export interface EvmDepositRow {
  invoice_id: string
  service: string
  chain_id: number
  token: string
  address: string
  salt: string
  payout: string
  units: string
  watch_until: Millis
  state: string
  created_at: Millis
}

export interface EvmCursorRow {
  service: string
  chain_id: number
  token: string
  next_block: number
  lease_owner: string | null
  lease_until: Millis
  read_until: Millis
  updated_at: Millis
}

export interface EvmTransferRow {
  chain_id: number
  tx_hash: string
  log_index: number
  invoice_id: string
  block_number: number
  block_hash: string
  block_time: Millis
  units: string
  confirmations: number
  reported_at: Millis | null
  created_at: Millis
}

export interface EvmSweepRow {
  invoice_id: string
  state: string
  tx_hash: string | null
  units: string | null
  attempts: number
  last_error: string | null
  next_at: Millis
  updated_at: Millis
}
