import type { Deposit, SeenTransfer } from '../domain/evm-deposit.js'
import type { InvoiceId, MerchantId } from '../domain/ids.js'

/** The detector's place in one service's chain, held by one instance at a time (a lease). */
export interface DetectorCursor {
  readonly service: string
  /** The first block not read yet. */
  readonly nextBlock: bigint
}

/** A sweep of a paid invoice's deposit to its payout address (docs/stablecoins.md#sweeping). */
export interface EvmSweep {
  readonly invoiceId: InvoiceId
  readonly state: 'due' | 'done'
  readonly txHash: string | null
  readonly attempts: number
  readonly lastError: string | null
  readonly nextAt: Date
}

/** Storage of the `evm` provider (migration 007); every method runs in the caller's transaction when given one. */
export interface EvmRepo {
  /** Sets (or replaces) the merchant's payout address for a service. */
  setPayout(merchantId: MerchantId, service: string, address: string, now: Date): Promise<void>
  findPayout(merchantId: MerchantId, service: string): Promise<string | undefined>
  insertDeposit(deposit: Deposit): Promise<void>
  findDeposit(invoiceId: InvoiceId): Promise<Deposit | undefined>
  /** Deposits of `service` watched at `now`, by address after `after`, at most `limit`. */
  listWatching(service: string, now: Date, after: string, limit: number): Promise<Deposit[]>
  setDepositState(invoiceId: InvoiceId, state: Deposit['state']): Promise<void>
  /**
   * Takes (or renews) the lease on the service's cursor for `owner` until `until`, creating it at `initialBlock`;
   * the cursor, or undefined while another owner's lease is live.
   */
  takeCursor(
    service: string,
    owner: string,
    now: Date,
    until: Date,
    initialBlock: bigint,
  ): Promise<DetectorCursor | undefined>
  /** Gives the lease back (a graceful stop), so another instance, or this one restarted, takes over at once. */
  releaseCursor(service: string, owner: string): Promise<void>
  /**
   * Compare-and-set: moves the cursor from `from` to `to` if `owner` still holds it there, noting the time of the last
   * block read (`readUntil`): until it passes a deposit invoice's expired_at, the clock does not expire that invoice.
   */
  advanceCursor(service: string, owner: string, from: bigint, to: bigint, readUntil: Date, now: Date): Promise<boolean>
  /** Inserts unless known (by chain, tx hash, log index); whether it was new. */
  insertTransfer(transfer: SeenTransfer): Promise<boolean>
  updateConfirmations(transfer: SeenTransfer, confirmations: number): Promise<void>
  /** A reorg dropped it: as if never seen. */
  deleteTransfer(transfer: SeenTransfer): Promise<void>
  markReported(transfer: SeenTransfer, now: Date): Promise<void>
  listTransfers(invoiceId: InvoiceId): Promise<SeenTransfer[]>
  /** Transfers to deposits of `service` with fewer than `required` confirmations. */
  listUnconfirmed(service: string, required: number): Promise<SeenTransfer[]>
  /**
   * Invoices of `service` holding final transfers not reported while the invoice can no longer take them (expired,
   * or failed; pending past expired_at with nothing confirming on time): a partial payment the invoice expired with.
   */
  listUnreported(service: string, required: number, now: Date, limit: number): Promise<InvoiceId[]>
  /** Makes the invoice's sweep due now, unless it has one. */
  addSweep(invoiceId: InvoiceId, now: Date): Promise<void>
  /**
   * Claims sweeps due at `now`, at most `limit`, moving each one's next attempt to `retryAt` (so a crash retries it);
   * FOR UPDATE SKIP LOCKED on PostgreSQL.
   */
  claimSweeps(now: Date, limit: number, retryAt: Date): Promise<EvmSweep[]>
  finishSweep(invoiceId: InvoiceId, txHash: string, amount: bigint, now: Date): Promise<void>
  failSweep(invoiceId: InvoiceId, error: string, nextAt: Date, now: Date): Promise<void>
  /** Sweeps due and how many of them have failed at least once (metrics). */
  sweepStats(): Promise<{ readonly due: number; readonly failing: number }>
  findSweep(invoiceId: InvoiceId): Promise<EvmSweep | undefined>
}
