import { currencyExponent } from './currencies.js'
import { readStatus, type Invoice } from './invoice.js'
import { isoTime } from './iso-time.js'
import { toMajorNumber } from './money.js'

/**
 * The original API's invoice, exactly these 13 fields (docs/api.md#getinfo, docs/api.md#versioning): what getInfo answers and what a webhook
 * carries as `data` (docs/webhooks.md#events). A pure mapping, so the HTTP shell and the webhook outbox share it.
 */
export interface InvoiceView {
  id: string
  merchant_id: string
  order_id: string
  amount: number
  currency: string
  status: string
  service: string
  url: string
  qr_data: string
  credited: number | null
  expired_at: string
  paid_at: string | null
  created_at: string
}

/** The ISO 4217 exponent of a stored invoice's currency; a stored invoice always has a known one. */
export function storedExponent(currency: string): number {
  const e = currencyExponent(currency)
  if (e === undefined) throw new Error(`stored invoice has unknown currency ${currency}`)
  return e
}

/**
 * What of an invoice its view reads: the 13 fields' sources, and what its status at a moment depends on. getInfo
 * reads only these (InvoiceReader.findInfo); a whole Invoice is one too.
 */
export type InvoiceInfo = Pick<
  Invoice,
  | 'id'
  | 'merchantId'
  | 'orderId'
  | 'amount'
  | 'currency'
  | 'status'
  | 'service'
  | 'payUrl'
  | 'qrData'
  | 'credited'
  | 'expiresAt'
  | 'paidAt'
  | 'createdAt'
  | 'paymentSeenAt'
>

/** The invoice as it reads at `now` (a pending invoice past expiry reads as expired). */
export function invoiceView(inv: InvoiceInfo, now: Date): InvoiceView {
  const exp = storedExponent(inv.currency)
  return {
    id: inv.id,
    merchant_id: inv.merchantId,
    order_id: inv.orderId,
    amount: toMajorNumber(inv.amount, exp),
    currency: inv.currency,
    status: readStatus(inv, now),
    service: inv.service,
    url: inv.payUrl,
    qr_data: inv.qrData,
    credited: inv.credited === null ? null : toMajorNumber(inv.credited, exp),
    expired_at: isoTime(inv.expiresAt),
    paid_at: inv.paidAt === null ? null : isoTime(inv.paidAt),
    created_at: isoTime(inv.createdAt),
  }
}
