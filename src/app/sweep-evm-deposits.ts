import type { EvmChain } from '../ports/evm-chain.js'
import type { AppDeps } from './deps.js'

export interface SweepSettings {
  /** The chain of a service bound to evm; undefined for another. */
  readonly chainOf: (service: string) => EvmChain | undefined
  readonly batch: number
  /** The first retry's delay; each further one doubles, up to an hour. */
  readonly retryMs: number
  /** Counts a failed sweep (the metrics). */
  readonly onFailure?: () => void
}

/**
 * docs/stablecoins.md#sweeping: forwards paid invoices' deposits to their payout addresses through the factory,
 * the relayer paying the gas. A sweep is claimed with its retry already scheduled, so a crash mid-sweep tries it
 * again later; a failure is kept with its message and retried with a doubling delay. Sending the same sweep twice
 * is harmless: the second finds an empty forwarder and moves nothing. Returns how many were swept.
 */
export async function sweepEvmDeposits(deps: Pick<AppDeps, 'store' | 'clock'>, s: SweepSettings): Promise<number> {
  const now = deps.clock.now()
  const claimed = await deps.store.transaction((tx) =>
    tx.evm.claimSweeps(now, s.batch, new Date(now.getTime() + s.retryMs)),
  )
  let swept = 0
  for (const sweep of claimed) {
    const deposit = await deps.store.evm.findDeposit(sweep.invoiceId)
    const chain = deposit && s.chainOf(deposit.service)
    if (deposit === undefined || chain === undefined) continue
    try {
      const { txHash, amount } = await chain.sweep(deposit.payout, deposit.salt)
      await deps.store.evm.finishSweep(sweep.invoiceId, txHash, amount, deps.clock.now())
      swept += 1
    } catch (err) {
      s.onFailure?.()
      const delay = Math.min(s.retryMs * 2 ** Math.min(sweep.attempts - 1, 20), 3_600_000)
      const at = deps.clock.now()
      // the RPC's message, never the relayer key (viem's errors do not carry it)
      const message = err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err)
      await deps.store.evm.failSweep(sweep.invoiceId, message, new Date(at.getTime() + delay), at)
    }
  }
  return swept
}
