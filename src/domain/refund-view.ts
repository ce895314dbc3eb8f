import { storedExponent } from './invoice-view.js'
import { isoTime } from './iso-time.js'
import { formatAmount } from './money.js'
import type { Refund } from './refund.js'

/**
 * A refund on the wire (docs/refunds.md#the-refund-object): what the refund endpoints answer and what the refund
 * events carry beside the invoice. A pure mapping, so the HTTP shell and the webhook outbox share it.
 */
export interface RefundView {
  id: string
  invoice_id: string
  amount: string
  currency: string
  status: string
  reason: string | null
  failure_reason: string | null
  created_at: string
  updated_at: string
}

export function refundView(r: Refund): RefundView {
  return {
    id: r.id,
    invoice_id: r.invoiceId,
    amount: formatAmount(r.amount, storedExponent(r.currency)),
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    failure_reason: r.failureReason,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
  }
}
