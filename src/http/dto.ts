import type { DepositPayment } from '../app/get-deposit-payment.js'
import type { DeliveryWithAttempts } from '../domain/delivery.js'
import type { Invoice } from '../domain/invoice.js'
import type { ApiKeyRecord, Merchant } from '../domain/merchant.js'
import { invoiceView, storedExponent, type InvoiceInfo, type InvoiceView } from '../domain/invoice-view.js'
import { formatAmount, type Minor } from '../domain/money.js'

/** The original API's invoice: exactly these 13 fields (docs/api.md#getinfo, docs/api.md#versioning); the mapping is the domain's, shared with webhooks. */
export type InvoiceWire = InvoiceView

/** The original API's create response. `order_id` carries the invoice id, as the original API has it. */
export interface CreateResponseWire {
  order_id: string
  pay_url: string
  qr_url: string
  qr_image: string
  amount: string
  is_new: boolean
}

export function invoiceToWire(inv: InvoiceInfo, now: Date): InvoiceWire {
  return invoiceView(inv, now)
}

/**
 * GET /api/v1/invoices/{id}: the invoice with `refunded_amount` (docs/refunds.md#the-invoice-view), and a stablecoin
 * invoice's payment (docs/stablecoins.md#states).
 */
export type InvoiceDetailWire = InvoiceWire & {
  refunded_amount: string
  payment?: { received: string; confirmations: number; confirmations_required: number; tx_hash: string | null }
  overpaid_amount?: string | null
}

export function invoiceDetailToWire(
  inv: Invoice,
  refunded: Minor,
  deposit: DepositPayment | undefined,
  now: Date,
): InvoiceDetailWire {
  const wire = { ...invoiceView(inv, now), refunded_amount: formatAmount(refunded, storedExponent(inv.currency)) }
  if (deposit === undefined) return wire
  return {
    ...wire,
    payment: {
      received: deposit.received,
      confirmations: deposit.confirmations,
      confirmations_required: deposit.required,
      tx_hash: deposit.txHash,
    },
    overpaid_amount: deposit.overpaid,
  }
}

export type { RefundView as RefundWire } from '../domain/refund-view.js'
export { refundView as refundToWire } from '../domain/refund-view.js'

export function createResponseToWire(
  inv: Invoice,
  isNew: boolean,
  publicUrl: string,
  qrImage: string,
): CreateResponseWire {
  return {
    order_id: inv.id,
    pay_url: inv.payUrl,
    qr_url: `${publicUrl}/qr/${inv.id}.png`,
    qr_image: qrImage,
    amount: formatAmount(inv.amount as Minor, storedExponent(inv.currency)),
    is_new: isNew,
  }
}

/** An entry of the delivery log (docs/webhooks.md#delivery-log). */
export interface DeliveryWire {
  id: string
  event_id: string
  invoice_id: string
  type: string
  url: string
  status: string
  attempts: { at: string; status_code: number | null; latency_ms: number; error: string | null }[]
  next_attempt_at: string | null
  created_at: string
}

export function deliveryToWire(d: DeliveryWithAttempts): DeliveryWire {
  return {
    id: d.id,
    event_id: d.eventId,
    invoice_id: d.invoiceId,
    type: d.type,
    url: d.url,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      at: a.at.toISOString(),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
    })),
    next_attempt_at: d.nextAttemptAt === null ? null : d.nextAttemptAt.toISOString(),
    created_at: d.createdAt.toISOString(),
  }
}

/** A merchant in the admin API (docs/admin-api.md#merchants). */
export interface AdminMerchantWire {
  merchant_id: string
  name: string
  default_service: string
  status: string
  created_at: string
}

export function adminMerchantToWire(m: Merchant): AdminMerchantWire {
  return {
    merchant_id: m.id,
    name: m.name,
    default_service: m.defaultService,
    status: m.status,
    created_at: m.createdAt.toISOString(),
  }
}

/** A merchant's API key in the admin API: its prefix, never the key or its hash. */
export interface AdminApiKeyWire {
  key_id: string
  merchant_id: string
  prefix: string
  created_at: string
  revoked_at: string | null
}

export function adminApiKeyToWire(k: ApiKeyRecord): AdminApiKeyWire {
  return {
    key_id: k.id,
    merchant_id: k.merchantId,
    prefix: `${k.prefix}…`,
    created_at: k.createdAt.toISOString(),
    revoked_at: k.revokedAt === null ? null : k.revokedAt.toISOString(),
  }
}
