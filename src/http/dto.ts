import { currencyExponent } from '../domain/currencies.js'
import { readStatus, type Invoice } from '../domain/invoice.js'
import { formatAmount, toMajorNumber, type Minor } from '../domain/money.js'

/** The seed's 2.1 invoice: exactly these 13 fields (API.md B4, B9). */
export interface InvoiceWire {
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

/** The seed's 2.3 create response. `order_id` carries the invoice id, as the seed says. */
export interface CreateResponseWire {
  order_id: string
  pay_url: string
  qr_url: string
  qr_image: string
  amount: string
  is_new: boolean
}

function exponentOf(currency: string): number {
  const e = currencyExponent(currency)
  if (e === undefined) throw new Error(`stored invoice has unknown currency ${currency}`)
  return e
}

export function invoiceToWire(inv: Invoice, now: Date): InvoiceWire {
  const exp = exponentOf(inv.currency)
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
    expired_at: inv.expiresAt.toISOString(),
    paid_at: inv.paidAt === null ? null : inv.paidAt.toISOString(),
    created_at: inv.createdAt.toISOString(),
  }
}

export function createResponseToWire(inv: Invoice, isNew: boolean, publicUrl: string, qrImage: string): CreateResponseWire {
  return {
    order_id: inv.id,
    pay_url: inv.payUrl,
    qr_url: `${publicUrl}/qr/${inv.id}.png`,
    qr_image: qrImage,
    amount: formatAmount(inv.amount as Minor, exponentOf(inv.currency)),
    is_new: isNew,
  }
}
