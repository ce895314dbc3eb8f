import { AppError } from '../domain/errors.js'
import type { Merchant } from '../domain/merchant.js'
import type { Refund, RefundId } from '../domain/refund.js'
import type { AppDeps } from './deps.js'
import { requireUuid } from './require-id.js'

/** GET /api/v1/refunds/{id} (docs/refunds.md#reading-refunds): the merchant's own refund; another's is 404 as a missing one. */
export async function getRefund(deps: Pick<AppDeps, 'store'>, merchant: Merchant, id: string): Promise<Refund> {
  const refund = await deps.store.refunds.findById(requireUuid('refund_id', id) as RefundId)
  if (refund === undefined || refund.merchantId !== merchant.id)
    throw new AppError('not_found', 'no such refund for this merchant')
  return refund
}
