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

/**
 * When the previous secret stops signing (docs/webhooks.md#secret-rotation): the end of the latest rotation's grace
 * period, or null when only the current secret signs.
 */
export async function webhookSecretGraceEnd(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  merchantId: MerchantId,
): Promise<Date | null> {
  const secrets = await deps.store.webhookSecrets.listActive(merchantId, deps.clock.now())
  const ends = secrets.flatMap((s) => (s.expiresAt === null ? [] : [s.expiresAt.getTime()]))
  return ends.length === 0 ? null : new Date(Math.max(...ends))
}
