import { AppError } from '../domain/errors.js'
import { requireInvoiceId } from './require-id.js'
import type { RefundDeps } from './apply-refund-update.js'
import { createRefund, type CreatedRefund } from './create-refund.js'

export interface OperatorRefundInput {
  readonly invoiceId: string
  readonly amount?: string | undefined
  readonly reason?: string | undefined
  /** Default: a new key, so each run of the command is a refund of its own. */
  readonly idempotencyKey?: string | undefined
}

/**
 * `invoice-service refund create` (docs/cli.md): the operator refunds any merchant's invoice, by the same rules and
 * the same path as the merchant's POST /api/v1/invoices/{id}/refunds (docs/refunds.md), on that merchant's behalf.
 */
export async function refundAsOperator(deps: RefundDeps, input: OperatorRefundInput): Promise<CreatedRefund> {
  const invoice = await deps.store.invoices.findById(requireInvoiceId(input.invoiceId))
  const merchant = invoice && (await deps.store.merchants.findById(invoice.merchantId))
  if (invoice === undefined || merchant === undefined) throw new AppError('invoice_not_found', 'no such invoice')
  return createRefund(deps, merchant, invoice.id, {
    amount: input.amount,
    reason: input.reason,
    idempotencyKey: input.idempotencyKey ?? `cli-${deps.newId()}`,
  })
}
