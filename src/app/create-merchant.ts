import { validationFailed } from '../domain/errors.js'
import type { ApiKeyId, MerchantId } from '../domain/ids.js'
import type { Merchant } from '../domain/merchant.js'
import { insertKey, merchantSettingsProblem, type MerchantDeps } from './merchant-records.js'

export interface CreatedMerchant {
  readonly merchant: Merchant
  readonly apiKey: string
  readonly apiKeyId: ApiKeyId
  readonly webhookSecret: string
}

/** `merchant create`: the merchant with its first API key and webhook secret, in one transaction. */
export async function createMerchant(
  deps: MerchantDeps,
  input: { name: string; defaultService?: string | undefined },
): Promise<CreatedMerchant> {
  const name = input.name.trim()
  const defaultService = input.defaultService ?? deps.catalog.services[0]?.name ?? 'card'
  const problem = merchantSettingsProblem(deps, name, defaultService)
  if (problem !== undefined) throw validationFailed([problem])
  const now = deps.clock.now()
  const merchant: Merchant = { id: deps.newId() as MerchantId, name, defaultService, status: 'active', createdAt: now }
  const webhookSecret = deps.secrets.newWebhookSecret()
  return deps.store.transaction(async (tx) => {
    await tx.merchants.insert(merchant)
    const issued = await insertKey(tx, deps, merchant.id, now)
    await tx.webhookSecrets.insert({ merchantId: merchant.id, secret: webhookSecret, createdAt: now, expiresAt: null })
    return { merchant, apiKey: issued.apiKey, apiKeyId: issued.key.id, webhookSecret }
  })
}
