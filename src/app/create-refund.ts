import { AppError, validationFailed, withArticle } from '../domain/errors.js'
import { readStatus, type Invoice } from '../domain/invoice.js'
import { storedExponent } from '../domain/invoice-view.js'
import type { Merchant } from '../domain/merchant.js'
import { formatAmount } from '../domain/money.js'
import {
  activeRefundTotal,
  decideRefundAmount,
  isIdempotencyKey,
  refundRequestFingerprint,
  validateRefundRequest,
  type Refund,
  type RefundId,
  type RefundRequestInput,
} from '../domain/refund.js'
import { applyRefundUpdate, askAcquirer, type RefundDeps } from './apply-refund-update.js'
import { refundablePayment } from './refund-payment.js'
import { requireInvoiceId } from './require-id.js'

export interface CreateRefundInput extends RefundRequestInput {
  /** The `Idempotency-Key` header; required (docs/refunds.md#idempotency). */
  readonly idempotencyKey: string | undefined
}

export interface CreatedRefund {
  readonly refund: Refund
  /** False when the key named a refund made before: this is its answer again. */
  readonly isNew: boolean
}

/**
 * POST /api/v1/invoices/{id}/refunds (docs/refunds.md). Three steps, so that neither a race nor an acquirer that
 * fails mid-way can refund more than was paid:
 * 1. reserve: one transaction locks the invoice (PostgreSQL `FOR UPDATE`; SQLite's write transaction is serial),
 *    checks it is paid and that the refunds not failed stay within its amount, and inserts the refund `pending`;
 * 2. ask the acquirer, outside any transaction, with the refund's own idempotency key;
 * 3. record its answer with the refund's event (app/apply-refund-update.ts). A refusal fails the refund, which
 *    then no longer counts; no answer leaves it pending for reconciliation to ask again with the same key.
 * The same Idempotency-Key with the same request answers the same refund; with another request 409
 * idempotency_key_reuse. Concurrent requests with one key make one refund (the unique index decides).
 */
export async function createRefund(
  deps: RefundDeps,
  merchant: Merchant,
  invoiceIdText: string,
  input: CreateRefundInput,
): Promise<CreatedRefund> {
  const invoiceId = requireInvoiceId(invoiceIdText)
  const key = input.idempotencyKey
  if (key === undefined || key === '')
    throw validationFailed([{ field: 'Idempotency-Key', message: 'is required: a refund moves money' }])
  if (!isIdempotencyKey(key))
    throw validationFailed([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }])
  const invoice = await deps.store.invoices.findById(invoiceId)
  if (invoice === undefined || invoice.merchantId !== merchant.id)
    throw new AppError('invoice_not_found', 'no such invoice for this merchant')
  const valid = validateRefundRequest(input, invoice.currency, storedExponent(invoice.currency))
  if (!valid.ok) throw validationFailed(valid.errors)
  // SHA-256 of the canonical request: "10", 10 and "10.00" are the same amount, so the same request
  const requestHash = deps.secrets.hashApiKey(refundRequestFingerprint(invoiceId, valid.amount, valid.reason))

  const before = await deps.store.refunds.findByKey(merchant.id, key)
  if (before !== undefined) return replay(before, requestHash)
  const payment = await refundablePayment(deps, invoice)
  const provider = payment.provider
  if (provider === undefined || !provider.capabilities.refund)
    throw new AppError('refund_unsupported', `the provider of service ${invoice.service} cannot refund`)

  const now = deps.clock.now()
  const reserved = await deps.store.transaction(async (tx) => {
    const locked = await tx.refunds.lockInvoice(invoiceId)
    if (locked === undefined) throw new AppError('invoice_not_found', 'no such invoice for this merchant')
    // a request with this key that won the lock first
    const raced = await tx.refunds.findByKey(merchant.id, key)
    if (raced !== undefined) return { refund: raced, simulateFailure: false, isNew: false }
    refuseUnlessPaid(locked, now)
    const decided = decideRefundAmount(
      valid.amount,
      locked.amount,
      activeRefundTotal(await tx.refunds.listByInvoice(invoiceId)),
    )
    if (!decided.ok) throw exceeds(locked, decided.remaining)
    const refund: Refund = {
      id: deps.newId() as RefundId,
      invoiceId,
      merchantId: merchant.id,
      provider: provider.name,
      amount: decided.amount,
      currency: locked.currency,
      status: 'pending',
      reason: valid.reason,
      failureReason: null,
      providerRefundId: null,
      idempotencyKey: key,
      requestHash,
      checks: 0,
      // should the acquirer's answer be lost (a crash, a timeout), reconciliation asks from then on
      nextCheckAt: new Date(now.getTime() + deps.acquirers.reconcileAfter * 1000),
      createdAt: now,
      updatedAt: now,
    }
    if ((await tx.refunds.insert(refund)) === 'key_exists') {
      const winner = await tx.refunds.findByKey(merchant.id, key)
      if (winner === undefined) throw new Error('a refund with this key vanished')
      return { refund: winner, simulateFailure: false, isNew: false }
    }
    const simulateFailure = provider.capabilities.simulate && (await tx.refunds.takeSandboxFailure(invoiceId))
    return { refund, simulateFailure, isNew: true }
  })
  if (!reserved.isNew) return replay(reserved.refund, requestHash)

  const outcome = await askAcquirer(provider, reserved.refund, payment, reserved.simulateFailure)
  if (outcome === undefined) return { refund: reserved.refund, isNew: true }
  const recorded = await applyRefundUpdate(deps, reserved.refund, outcome)
  return { refund: recorded ?? reserved.refund, isNew: true }
}

function replay(refund: Refund, requestHash: string): CreatedRefund {
  if (refund.requestHash !== requestHash)
    throw new AppError(
      'idempotency_key_reuse',
      'this Idempotency-Key was used with another request: send a new key for a new refund',
    )
  return { refund, isNew: false }
}

function refuseUnlessPaid(invoice: Invoice, now: Date): void {
  const status = readStatus(invoice, now)
  if (status !== 'paid')
    throw new AppError('invalid_transition', `${withArticle(status)} invoice cannot be refunded: only a paid one`)
}

function exceeds(invoice: Invoice, remaining: number): AppError {
  const left = formatAmount(remaining as Refund['amount'], storedExponent(invoice.currency))
  return new AppError(
    'refund_exceeds_amount',
    `the refunds of this invoice would exceed its amount: ${left} ${invoice.currency} is left to refund`,
  )
}
