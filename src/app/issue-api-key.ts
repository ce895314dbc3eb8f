import { validationFailed } from '../domain/errors.js'
import type { MerchantId } from '../domain/ids.js'
import { apiKeyNameProblem } from '../domain/merchant.js'
import { insertKey, merchantNotFound, type IssuedKey, type MerchantDeps } from './merchant-records.js'
import { requireUuid } from './require-id.js'

/**
 * `key create`, the admin API and the dashboard: a further active key for the merchant (rotation without downtime),
 * with a name when one is given (docs/dashboard.md#api-keys).
 */
export async function issueApiKey(deps: MerchantDeps, merchantIdText: string, name?: string): Promise<IssuedKey> {
  const merchantId = requireUuid('merchant_id', merchantIdText) as MerchantId
  const named = name?.trim()
  const problem = named === undefined ? undefined : apiKeyNameProblem(named)
  if (problem !== undefined) throw validationFailed([{ field: 'name', message: problem }])
  return deps.store.transaction(async (tx) => {
    if ((await tx.merchants.findById(merchantId)) === undefined) throw merchantNotFound(merchantIdText)
    return insertKey(tx, deps, merchantId, deps.clock.now(), named ?? null)
  })
}
