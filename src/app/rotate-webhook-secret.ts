import type { MerchantId } from '../domain/ids.js'
import type { AppDeps } from './deps.js'
import { merchantNotFound } from './merchant-records.js'
import { requireUuid } from './require-id.js'

/**
 * `webhook-secret rotate`: a new secret signs from now on; the previous ones keep signing alongside it for
 * the grace period, so a merchant can deploy the new secret without rejecting webhooks meanwhile.
 */
export async function rotateWebhookSecret(
  deps: Pick<AppDeps, 'store' | 'clock' | 'secrets' | 'webhookSecretGrace'>,
  merchantIdText: string,
): Promise<{ webhookSecret: string; previousValidUntil: Date }> {
  const merchantId = requireUuid('merchant_id', merchantIdText) as MerchantId
  const now = deps.clock.now()
  const previousValidUntil = new Date(now.getTime() + deps.webhookSecretGrace * 1000)
  const webhookSecret = deps.secrets.newWebhookSecret()
  await deps.store.transaction(async (tx) => {
    if ((await tx.merchants.findById(merchantId)) === undefined) throw merchantNotFound(merchantIdText)
    await tx.webhookSecrets.retireCurrent(merchantId, previousValidUntil)
    await tx.webhookSecrets.insert({ merchantId, secret: webhookSecret, createdAt: now, expiresAt: null })
  })
  return { webhookSecret, previousValidUntil }
}
