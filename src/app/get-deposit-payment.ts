import { decideDeposit, unitsToMajor } from '../domain/evm-deposit.js'
import type { Invoice } from '../domain/invoice.js'
import type { AppDeps } from './deps.js'

/** What a deposit invoice has received (docs/stablecoins.md#states): the extension view's `payment`. */
export interface DepositPayment {
  /** Everything seen at the deposit address, in the token's major units (decimal text). */
  readonly received: string
  /** The confirmations of the latest transfer (capped at those required), or 0 when none was seen. */
  readonly confirmations: number
  readonly required: number
  /** The latest transfer's transaction; null when none was seen. */
  readonly txHash: string | null
  /** Paid with more than the amount: the excess in the token's major units (decimal text); null otherwise. */
  readonly overpaid: string | null
  /** The deposit address, the chain and the token (the payment page). */
  readonly address: string
  readonly chainId: number
  readonly token: string
  /** The invoice's amount in the token's major units (decimal text). */
  readonly amount: string
}

/** The deposit payment of an invoice of a deposit service (evm); undefined for any other invoice. */
export async function getDepositPayment(
  deps: Pick<AppDeps, 'store' | 'providers' | 'clock'>,
  invoice: Invoice,
): Promise<DepositPayment | undefined> {
  const token = deps.providers.forService(invoice.service).deposits?.tokenOf(invoice.service)
  if (token === undefined) return undefined
  const deposit = await deps.store.evm.findDeposit(invoice.id)
  if (deposit === undefined) return undefined
  const transfers = await deps.store.evm.listTransfers(invoice.id)
  const latest = transfers[transfers.length - 1]
  const d = decideDeposit(invoice, deposit, transfers, token.confirmations, deps.clock.now())
  const excess = d.final - deposit.units
  return {
    received: unitsToMajor(d.seen, token.decimals),
    confirmations: latest === undefined ? 0 : Math.min(latest.confirmations, token.confirmations),
    required: token.confirmations,
    txHash: latest?.txHash ?? null,
    overpaid: invoice.status === 'paid' && excess > 0n ? unitsToMajor(excess, token.decimals) : null,
    address: deposit.address,
    chainId: deposit.chainId,
    token: token.token,
    amount: unitsToMajor(deposit.units, token.decimals),
  }
}
