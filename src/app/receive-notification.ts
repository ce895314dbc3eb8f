import { AppError } from '../domain/errors.js'
import type { IncomingNotification } from '../ports/payment-provider.js'
import { applyRefundNotification } from './apply-refund-update.js'
import { applyPaymentUpdate, type PaymentUpdateDeps, type UpdateResult } from './apply-payment-update.js'

export interface NotificationReceipt {
  /** The acquirer's event name, for the log. */
  readonly event: string
  /** What it did; `ignored`: verified, but outside the mapping (docs/providers.md#notifications). */
  readonly result: UpdateResult | 'ignored'
}

/**
 * `POST /providers/{provider}/notifications` (docs/providers.md#notifications): the provider's adapter verifies and
 * translates (a failure throws `NotificationRejected`: nothing changes); the update is applied as any other
 * (app/apply-payment-update.ts). A provider that is not configured here, or has no hosted checkout, has no route.
 */
export async function receiveNotification(
  deps: PaymentUpdateDeps,
  providerName: string,
  notification: IncomingNotification,
): Promise<NotificationReceipt> {
  const provider = deps.providers.byName(providerName)
  if (provider === undefined || !provider.capabilities.checkout) {
    throw new AppError('not_found', `no provider ${providerName} is configured here`)
  }
  const outcome = await provider.verifyNotification(notification)
  if (outcome.kind === 'ignored') return { event: outcome.event, result: 'ignored' }
  if (outcome.kind === 'refund')
    return { event: outcome.event, result: await applyRefundNotification(deps, provider.name, outcome.refund) }
  return { event: outcome.event, result: await applyPaymentUpdate(deps, provider.name, outcome.update) }
}
