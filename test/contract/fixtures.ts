/** Builders of valid domain objects for the store contract; every id and order_id is fresh, so tests never collide. */
import { randomUUID } from 'node:crypto'
import type { ApiKeyId, EventId, InvoiceId, MerchantId } from '../../src/domain/ids.js'
import type { Invoice, InvoiceEvent } from '../../src/domain/invoice.js'
import type { ApiKeyRecord, Merchant, WebhookSecret } from '../../src/domain/merchant.js'
import type { Minor } from '../../src/domain/money.js'
import type { Store } from '../../src/ports/store.js'

export interface ContractContext {
  /** The store opened and migrated for the current test. */
  store(): Store
}

/** The tests' "now"; every other time is an offset from it. */
export const T0 = new Date('2026-03-01T12:00:00.000Z')
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE

export function at(offsetMs: number): Date {
  return new Date(T0.getTime() + offsetMs)
}

export function merchantFixture(over: Partial<Merchant> = {}): Merchant {
  return {
    id: randomUUID() as MerchantId,
    name: 'Test Shop',
    defaultService: 'card',
    status: 'active',
    createdAt: T0,
    ...over,
  }
}

/** A pending invoice created at T0 that expires an hour later. */
export function invoiceFixture(merchantId: MerchantId, over: Partial<Invoice> = {}): Invoice {
  const id = (over.id ?? randomUUID()) as InvoiceId
  const createdAt = over.createdAt ?? T0
  return {
    id,
    merchantId,
    orderId: `order-${randomUUID()}`,
    amount: 10050 as Minor,
    currency: 'RUB',
    status: 'pending',
    service: 'card',
    comment: null,
    callbackUrl: null,
    successUrl: null,
    failUrl: null,
    payUrl: `http://pay.test/pay/${id}`,
    qrData: `http://pay.test/pay/${id}`,
    credited: null,
    fee: 251 as Minor,
    expiresAt: new Date(createdAt.getTime() + HOUR),
    paidAt: null,
    heldAt: null,
    createdAt,
    updatedAt: createdAt,
    ...over,
  }
}

export function apiKeyFixture(merchantId: MerchantId, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: randomUUID() as ApiKeyId,
    merchantId,
    hash: randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', ''),
    prefix: 'mk_abcdef',
    name: null,
    createdAt: T0,
    revokedAt: null,
    lastUsedAt: null,
    ...over,
  }
}

export function webhookSecretFixture(merchantId: MerchantId, over: Partial<WebhookSecret> = {}): WebhookSecret {
  return { merchantId, secret: `whsec_${randomUUID()}`, createdAt: T0, expiresAt: null, ...over }
}

export function eventFixture(invoice: Invoice, over: Partial<InvoiceEvent> = {}): InvoiceEvent {
  return {
    id: randomUUID() as EventId,
    invoiceId: invoice.id,
    merchantId: invoice.merchantId,
    type: 'invoice.paid',
    createdAt: T0,
    ...over,
  }
}

/** Ids that sort in the given order (the tie-break of newest-first listings is the id). */
export function ascendingIds<T extends string = InvoiceId>(n: number): T[] {
  return Array.from({ length: n }, () => randomUUID())
    .sort()
    .map((id) => id as T)
}

/** Inserts a fresh merchant in its own transaction. */
export async function givenMerchant(store: Store, over: Partial<Merchant> = {}): Promise<Merchant> {
  const m = merchantFixture(over)
  await store.transaction((tx) => tx.merchants.insert(m))
  return m
}

/** Inserts a fresh invoice in its own transaction; fails the test if a live one already holds its order_id. */
export async function givenInvoice(
  store: Store,
  merchantId: MerchantId,
  over: Partial<Invoice> = {},
): Promise<Invoice> {
  const inv = invoiceFixture(merchantId, over)
  const result = await store.transaction((tx) => tx.invoices.insert(inv))
  if (result !== 'inserted') throw new Error(`fixture invoice not inserted: ${result}`)
  return inv
}
