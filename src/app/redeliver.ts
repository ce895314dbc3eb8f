import type { DeliveryWithAttempts } from '../domain/delivery.js'
import { AppError } from '../domain/errors.js'
import type { DeliveryId } from '../domain/ids.js'
import { requireUuid } from './require-id.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'

/**
 * POST /api/v1/webhooks/deliveries/{id}/retry (docs/webhooks.md#redelivery): redeliver now, under the same webhook-id and with the
 * same body. The delivery becomes pending and due at once, with a fresh run of the retry schedule, whatever
 * its state (a failed one after an outage is fixed; a succeeded one the merchant lost). While an attempt of it is
 * under way, that attempt is the redelivery: nothing changes, and the answer shows the delivery as it is. Another
 * merchant's delivery is 404, like a missing one.
 */
export async function redeliver(
  deps: Pick<AppDeps, 'store' | 'clock' | 'eventSignal'>,
  merchant: Merchant,
  idText: string,
): Promise<DeliveryWithAttempts> {
  const id = requireUuid('delivery_id', idText) as DeliveryId
  const now = deps.clock.now()
  const delivery = await deps.store.transaction(async (tx) => {
    const found = await tx.deliveries.findById(id)
    if (found === undefined || found.merchantId !== merchant.id)
      throw new AppError('not_found', 'no such delivery for this merchant')
    await tx.deliveries.requeue(id, now)
    return tx.deliveries.findById(id)
  })
  if (delivery === undefined) throw new AppError('not_found', 'no such delivery for this merchant')
  deps.eventSignal.notify()
  return delivery
}
