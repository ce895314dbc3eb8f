/** Merchants and their keys and secrets, each use case with its dependencies given once (see ./invoices.ts). */
import { createApiKeyAuthenticator } from '../../app/authenticate-api-key.js'
import { createMerchant } from '../../app/create-merchant.js'
import type { AppDeps } from '../../app/deps.js'
import { ensureDemoMerchant } from '../../app/ensure-demo-merchant.js'
import { issueApiKey } from '../../app/issue-api-key.js'
import { listApiKeys } from '../../app/list-api-keys.js'
import { listMerchants } from '../../app/list-merchants.js'
import { revokeApiKey } from '../../app/revoke-api-key.js'
import { rotateWebhookSecret, webhookSecretGraceEnd } from '../../app/rotate-webhook-secret.js'
import { setMerchantStatus } from '../../app/set-merchant-status.js'
import { setPayoutAddress } from '../../app/set-payout-address.js'
import { updateMerchantSettings } from '../../app/update-merchant-settings.js'

/** `keyCacheTtl`: KEY_CACHE_TTL, how long a found API key is trusted without the database. */
export function bindAccountUseCases(deps: AppDeps, keyCacheTtl: number) {
  return {
    authenticate: createApiKeyAuthenticator(deps, keyCacheTtl),
    createMerchant: createMerchant.bind(null, deps),
    listMerchants: listMerchants.bind(null, deps),
    setMerchantStatus: setMerchantStatus.bind(null, deps),
    issueApiKey: issueApiKey.bind(null, deps),
    listApiKeys: listApiKeys.bind(null, deps),
    revokeApiKey: revokeApiKey.bind(null, deps),
    rotateWebhookSecret: rotateWebhookSecret.bind(null, deps),
    /** The dashboard's webhooks page: until when the previous secret still signs. */
    webhookSecretGraceEnd: webhookSecretGraceEnd.bind(null, deps),
    ensureDemoMerchant: ensureDemoMerchant.bind(null, deps),
    setPayoutAddress: setPayoutAddress.bind(null, deps),
    /** The dashboard's settings page (docs/dashboard.md#settings). */
    updateSettings: updateMerchantSettings.bind(null, deps),
    /** The services a merchant may make its default. */
    services: () => deps.catalog.services.map((s) => s.name),
  }
}
