import { validationFailed } from '../domain/errors.js'
import type { MerchantId } from '../domain/ids.js'
import type { Merchant } from '../domain/merchant.js'
import { merchantNotFound, merchantSettingsProblem, type MerchantDeps } from './merchant-records.js'

/**
 * The dashboard's settings page (docs/dashboard.md#settings): the name shown on the payment page and the default
 * service (one of the configured services), checked as `merchant create` checks them. Returns the merchant as saved.
 */
export async function updateMerchantSettings(
  deps: Pick<MerchantDeps, 'store' | 'catalog'>,
  merchantId: MerchantId,
  input: { readonly name: string; readonly defaultService: string },
): Promise<Merchant> {
  const name = input.name.trim()
  const problem = merchantSettingsProblem(deps, name, input.defaultService)
  if (problem !== undefined) throw validationFailed([problem])
  return deps.store.transaction(async (tx) => {
    if (!(await tx.merchants.setSettings(merchantId, { name, defaultService: input.defaultService })))
      throw merchantNotFound(merchantId)
    const saved = await tx.merchants.findById(merchantId)
    if (saved === undefined) throw merchantNotFound(merchantId)
    return saved
  })
}
