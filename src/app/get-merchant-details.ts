import type { ServiceRules } from '../domain/catalog.js'
import type { MerchantId } from '../domain/ids.js'
import type { Invoice } from '../domain/invoice.js'
import type { ApiKeyRecord, Merchant } from '../domain/merchant.js'
import type { User } from '../domain/user.js'
import type { AppDeps } from './deps.js'
import { merchantNotFound } from './merchant-records.js'
import { requireUuid } from './require-id.js'

export interface MerchantDetails {
  readonly merchant: Merchant
  readonly keys: readonly ApiKeyRecord[]
  readonly users: readonly User[]
  /** Its newest invoices. */
  readonly invoices: readonly Invoice[]
  /** Every service, with its fee (docs/configuration.md#variables, SERVICE_FEES). */
  readonly services: readonly ServiceRules[]
}

/** One merchant as the operator console shows it (docs/dashboard.md#operator-console); unknown → 404. */
export async function getMerchantDetails(
  deps: Pick<AppDeps, 'store' | 'clock' | 'catalog'>,
  id: string,
  recent = 20,
): Promise<MerchantDetails> {
  const merchantId = requireUuid('merchant_id', id) as MerchantId
  const merchant = await deps.store.merchants.findById(merchantId)
  if (merchant === undefined) throw merchantNotFound(id)
  const [keys, users, invoices] = await Promise.all([
    deps.store.apiKeys.listByMerchant(merchantId),
    deps.store.users.listByMerchant(merchantId),
    deps.store.invoices.list({ merchantId, limit: recent, now: deps.clock.now() }),
  ])
  return { merchant, keys, users, invoices, services: deps.catalog.services }
}
