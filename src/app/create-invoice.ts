import { serviceFee } from '../domain/catalog.js'
import { AppError, validationFailed } from '../domain/errors.js'
import type { EventId, InvoiceId } from '../domain/ids.js'
import { readStatus, transition, type Invoice } from '../domain/invoice.js'
import { validateCreateRequest, type CreateInvoiceInput, type ValidCreateRequest } from '../domain/invoice-request.js'
import type { Deposit } from '../domain/evm-deposit.js'
import type { Merchant } from '../domain/merchant.js'
import type { PaymentSession } from '../ports/payment-provider.js'
import type { Tx } from '../ports/store.js'
import type { AppDeps } from './deps.js'
import { recordEvent, type RecordEventDeps } from './record-event.js'

export type CreateInvoiceDeps = Pick<
  AppDeps,
  | 'store'
  | 'clock'
  | 'newId'
  | 'providers'
  | 'catalog'
  | 'publicUrl'
  | 'callbackAllowHttp'
  | 'lifetime'
  | 'eventSignal'
  | 'webhooks'
>

export interface CreateInvoiceResult {
  readonly invoice: Invoice
  readonly isNew: boolean
}

/**
 * docs/api.md#create-an-invoice, docs/api.md#idempotency: validates, then inserts the invoice unless a live one holds the order_id. The database's
 * partial unique index settles races: N simultaneous identical requests make one invoice.
 */
export async function createInvoice(
  deps: CreateInvoiceDeps,
  merchant: Merchant,
  input: CreateInvoiceInput,
): Promise<CreateInvoiceResult> {
  const checked = validateCreateRequest(input, {
    catalog: deps.catalog,
    defaultService: merchant.defaultService,
    callbackAllowHttp: deps.callbackAllowHttp,
    webhookAllowPrivate: deps.webhooks.allowPrivate,
    lifetime: deps.lifetime,
  })
  if (!checked.ok) throw validationFailed(checked.errors)
  const req = checked.value
  // docs/providers.md#currencies: an acquirer that does not take the currency is known now, not at the buyer's click
  const provider = deps.providers.forService(req.service)
  if (provider.currencies !== undefined && !provider.currencies.includes(req.currency)) {
    throw validationFailed([
      {
        field: 'currency',
        message: `service ${req.service} takes ${provider.currencies.join(', ')} only, not ${req.currency}`,
      },
    ])
  }

  const now = deps.clock.now()
  const id = deps.newId() as InvoiceId
  const payUrl = `${deps.publicUrl}/pay/${id}`
  const expiresAt = new Date(now.getTime() + req.lifetimeSeconds * 1000)
  const request = { invoiceId: id, amount: req.amount, currency: req.currency, service: req.service, payUrl }
  let session: PaymentSession
  let deposit: Deposit | undefined
  if (provider.deposits !== undefined) {
    // docs/stablecoins.md#payout-addresses: the deposit forwards only to the merchant's own address
    const payout = await deps.store.evm.findPayout(merchant.id, req.service)
    if (payout === undefined)
      throw validationFailed([
        {
          field: 'service',
          message: `service ${req.service} needs a payout address for this merchant (invoice-service merchant set-payout)`,
        },
      ])
    ;({ session, deposit } = provider.deposits.prepare({ ...request, payout, expiresAt, now }))
  } else session = provider.createPayment(request)
  const candidate: Invoice = {
    id,
    merchantId: merchant.id,
    orderId: req.orderId,
    amount: req.amount,
    currency: req.currency,
    status: 'pending',
    service: req.service,
    comment: req.comment,
    callbackUrl: req.callbackUrl,
    successUrl: req.successUrl,
    failUrl: req.failUrl,
    payUrl: session.url,
    qrData: session.qrData,
    credited: null,
    // docs/api.md#fees-and-credited: the fee on the terms in force now, kept with the invoice for when it is paid
    fee: serviceFee(deps.catalog, req.service, req.currency, req.amount),
    expiresAt,
    paidAt: null,
    heldAt: null,
    createdAt: now,
    updatedAt: now,
  }

  // A new order_id, the common case, is one insert: where the store commits it by itself more cheaply than a
  // transaction (PostgreSQL: one round trip; SQLite: into the group commit without a savepoint), it goes alone. So
  // does a repeat of a create, which writes nothing: the live invoice answers it (or refuses it), read as committed.
  // The transaction below runs only when the holder has to be expired first, or left the live set between the two
  // statements.
  // a deposit is written with its invoice, in one transaction
  const insertAlone = deposit === undefined ? deps.store.insertInvoice : undefined
  if (insertAlone !== undefined) {
    if ((await insertAlone(candidate)) === 'inserted') return { invoice: candidate, isNew: true }
    const live = await deps.store.invoices.findLive(merchant.id, req.orderId)
    if (live !== undefined && readStatus(live, now) !== 'expired') return repeated(live, req)
  }

  let expired = false
  const result = await deps.store.transaction(async (tx) => {
    // More than one round only when the holder of the order_id changed meanwhile (a stale pending one we expired).
    // After the insert alone lost, the holder is read first: inserting again would most likely lose again.
    let insertFirst = insertAlone === undefined
    for (let round = 0; round < 3; round += 1) {
      if (insertFirst && (await tx.invoices.insert(candidate)) === 'inserted') {
        if (deposit !== undefined) await tx.evm.insertDeposit(deposit)
        return { invoice: candidate, isNew: true }
      }
      insertFirst = true
      const live = await tx.invoices.findLive(merchant.id, req.orderId)
      if (live === undefined) continue // the holder left the live set between our two statements
      if (readStatus(live, now) === 'expired') {
        if (await expireStale(tx, deps, live, now)) expired = true
        continue
      }
      return repeated(live, req)
    }
    throw new Error('create-invoice: order_id kept changing hands')
  })
  if (expired) deps.eventSignal.notify() // the expiry's webhook, committed with the new invoice
  return result
}

/**
 * docs/api.md#idempotency: a create whose order_id a live invoice holds is a repeat when amount, currency and service match (that
 * invoice is the answer); otherwise it conflicts.
 */
function repeated(live: Invoice, req: ValidCreateRequest): CreateInvoiceResult {
  if (live.amount === req.amount && live.currency === req.currency && live.service === req.service)
    return { invoice: live, isNew: false }
  throw new AppError(
    'order_id_conflict',
    `order_id "${req.orderId}" already has a ${live.status} invoice ${live.id} with another amount, currency or service; ` +
      (live.status === 'paid'
        ? 'it is paid, so a new amount needs a new order_id'
        : 'cancel it first to re-create the order'),
  )
}

/** A pending invoice past its expiry no longer holds its order_id (docs/api.md#idempotency): expire it now, with its event. */
async function expireStale(tx: Tx, deps: RecordEventDeps, live: Invoice, now: Date): Promise<boolean> {
  const t = transition(live, { to: 'expired', now, eventId: deps.newId() as EventId })
  if (!t.ok || !(await tx.invoices.update(t.invoice, live.status))) return false
  await recordEvent(tx, deps, t.invoice, t.event)
  return true
}
