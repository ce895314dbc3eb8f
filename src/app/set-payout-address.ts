import { AppError, validationFailed } from '../domain/errors.js'
import type { MerchantId } from '../domain/ids.js'
import type { AppDeps } from './deps.js'

/**
 * `invoice-service merchant set-payout` (docs/stablecoins.md#payout-addresses): where a merchant's deposits of a
 * service are forwarded. Invoices created before keep the address they were made with (their deposit address
 * derives from it). Returns the address as stored (checksummed).
 */
export async function setPayoutAddress(
  deps: Pick<AppDeps, 'store' | 'clock' | 'providers'>,
  merchantId: string,
  service: string,
  address: string,
): Promise<string> {
  const scheme = deps.providers.forService(service).deposits
  if (scheme === undefined)
    throw validationFailed([{ field: 'service', message: `service ${service} is not paid to payout addresses` }])
  const checked = scheme.payoutAddress(address)
  if (checked === undefined)
    throw validationFailed([
      { field: 'address', message: 'must be an address: 0x and 40 hexadecimal digits, with a valid EIP-55 checksum' },
    ])
  const merchant = await deps.store.merchants.findById(merchantId as MerchantId)
  if (merchant === undefined) throw new AppError('not_found', `no merchant ${merchantId}`)
  await deps.store.evm.setPayout(merchant.id, service, checked, deps.clock.now())
  return checked
}
