/**
 * The `evm` provider (docs/stablecoins.md): stablecoin payments on EVM chains to a deposit address per invoice.
 * Create is local: the address is the CREATE2 address of the invoice's forwarder, computed here; `qr_data` is an
 * EIP-681 transfer request. There is no checkout, no hold and no refund (a payment is settled by hand from the
 * payout wallet); the detector and the sweeper (app/detect-evm-payments.ts, app/sweep-evm-deposits.ts) do the rest.
 */
import { getAddress, isAddress, zeroAddress, type Address } from 'viem'
import type { EvmConfig } from '../../../config/config.js'
import { currencyExponent } from '../../../domain/currencies.js'
import { AppError, validationFailed } from '../../../domain/errors.js'
import { minorToUnits } from '../../../domain/evm-deposit.js'
import { NotificationRejected, type PaymentProvider } from '../../../ports/payment-provider.js'
import { depositAddress, saltFor } from './deposit-address.js'

/** EIP-681: a token transfer of `units` to `to`, on `chainId`. */
export const eip681 = (token: string, chainId: number, to: string, units: bigint): string =>
  `ethereum:${token}@${chainId}/transfer?address=${to}&uint256=${units}`

export function createEvmProvider(config: EvmConfig): PaymentProvider {
  const services = config.services
  const unsupported = (what: string) => () =>
    Promise.reject(new AppError('not_found', `stablecoin payments have no ${what}`))
  return {
    name: 'evm',
    capabilities: { checkout: false, simulate: false, hold: false, refund: false, fetch: false },
    checkoutOrigins: [],
    currencies: [...new Set(Object.values(services).map((s) => s.currency))],
    createPayment: () => {
      throw new Error('the evm provider creates deposits (deposits.prepare), not payments')
    },
    deposits: {
      tokenOf(service) {
        const svc = services[service]
        return (
          svc && {
            chainId: svc.chainId,
            token: getAddress(svc.token),
            decimals: svc.decimals,
            confirmations: svc.confirmations,
          }
        )
      },
      payoutAddress(text) {
        // all one case: no checksum to check; mixed case: it must be the right one (EIP-55)
        if (!isAddress(text, { strict: text !== text.toLowerCase() && text.slice(2) !== text.slice(2).toUpperCase() }))
          return undefined
        const address = getAddress(text)
        return address === zeroAddress ? undefined : address
      },
      prepare(request) {
        const svc = services[request.service]
        if (svc === undefined || config.factory === undefined)
          throw new Error(`service ${request.service} is not on evm`)
        if (request.currency !== svc.currency)
          throw validationFailed([
            {
              field: 'currency',
              message: `service ${request.service} takes ${svc.currency} only, not ${request.currency}`,
            },
          ])
        const units = minorToUnits(request.amount, currencyExponent(request.currency) ?? 2, svc.decimals)
        if (units === undefined)
          throw validationFailed([
            { field: 'amount', message: `the token of service ${request.service} has ${svc.decimals} decimals only` },
          ])
        const token = getAddress(svc.token)
        const salt = saltFor(request.invoiceId)
        const address = depositAddress(getAddress(config.factory), getAddress(request.payout) as Address, salt)
        return {
          session: { url: request.payUrl, qrData: eip681(token, svc.chainId, address, units) },
          deposit: {
            invoiceId: request.invoiceId,
            service: request.service,
            chainId: svc.chainId,
            token: token.toLowerCase(),
            address: address.toLowerCase(),
            salt,
            payout: getAddress(request.payout),
            units,
            watchUntil: new Date(request.expiresAt.getTime() + config.lateWindow * 1000),
            state: 'watching',
            createdAt: request.now,
          },
        }
      },
    },
    startCheckout: unsupported('hosted checkout'),
    verifyNotification: () => Promise.reject(new NotificationRejected(401, 'the evm provider takes no notifications')),
    fetchPayment: () => Promise.reject(new AppError('provider_error', 'stablecoin payments are read from the chain')),
    endCheckout: async () => undefined,
    captureHold: unsupported('holds'),
    releaseHold: unsupported('holds'),
    // capabilities.refund is false: the app never asks (docs/stablecoins.md#refunds)
    refund: () =>
      Promise.reject(new AppError('provider_error', 'stablecoin payments are refunded by hand from the payout wallet')),
    fetchRefund: () =>
      Promise.reject(new AppError('provider_error', 'stablecoin payments are refunded by hand from the payout wallet')),
  }
}
