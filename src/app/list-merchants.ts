import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'

export async function listMerchants(deps: Pick<AppDeps, 'store'>): Promise<Merchant[]> {
  return deps.store.merchants.list()
}
