/**
 * Stablecoin deposits on EVM chains (docs/stablecoins.md): each invoice of an `evm` service has a deposit address of
 * its own; transfers of the token to it are seen, confirmed (or undone by a reorg) and add up. Pure rules: what an
 * invoice's transfers mean for it now. Amounts here are the token's units (bigint: 18-decimal tokens overflow doubles).
 */
import type { InvoiceId } from './ids.js'
import type { Invoice } from './invoice.js'

export interface Deposit {
  readonly invoiceId: InvoiceId
  readonly service: string
  readonly chainId: number
  /** The token contract, lower-case hex. */
  readonly token: string
  /** The deposit (forwarder) address, lower-case hex. */
  readonly address: string
  /** The CREATE2 salt (0x + 64 hex), derived from the invoice id. */
  readonly salt: string
  /** The merchant's payout address when the invoice was created, checksummed. */
  readonly payout: string
  /** The invoice's amount in the token's units. */
  readonly units: bigint
  /** Transfers to the address are watched until then (expired_at + EVM_LATE_WINDOW). */
  readonly watchUntil: Date
  readonly state: 'watching' | 'done'
  readonly createdAt: Date
}

export interface SeenTransfer {
  readonly chainId: number
  readonly txHash: string
  readonly logIndex: number
  readonly invoiceId: InvoiceId
  readonly blockNumber: bigint
  readonly blockHash: string
  /** The block's timestamp: a transfer in a block before expired_at is on time. */
  readonly blockTime: Date
  readonly amount: bigint
  /** Blocks from the transfer's to the head, its own included, when last counted. */
  readonly confirmations: number
  /** When invoice.late_payment reported it; null while not (or never to be) reported. */
  readonly reportedAt: Date | null
  readonly createdAt: Date
}

/** What an invoice's transfers call for now (docs/stablecoins.md#states). */
export interface DepositDecision {
  /** Units received in transfers seen (any confirmations) and in final ones. */
  readonly seen: bigint
  readonly final: bigint
  /** A transfer mined before expired_at is still confirming: the invoice must not expire meanwhile. */
  readonly confirmingOnTime: boolean
  /** Final on-time transfers cover the amount: the invoice becomes paid, with what exceeds it. */
  readonly pay: { readonly overpaid: bigint } | undefined
  /** Final transfers on an invoice that can no longer take them, not yet reported: invoice.late_payment each. */
  readonly late: readonly SeenTransfer[]
  /** Nothing more to watch: the invoice is paid, or final and out of the monitoring window. */
  readonly done: boolean
}

export function decideDeposit(
  invoice: Pick<Invoice, 'status' | 'expiresAt'>,
  deposit: Pick<Deposit, 'units' | 'watchUntil'>,
  transfers: readonly SeenTransfer[],
  required: number,
  now: Date,
): DepositDecision {
  const isFinal = (t: SeenTransfer): boolean => t.confirmations >= required
  const onTime = (t: SeenTransfer): boolean => t.blockTime.getTime() < invoice.expiresAt.getTime()
  const sum = (ts: readonly SeenTransfer[]): bigint => ts.reduce((s, t) => s + t.amount, 0n)
  const seen = sum(transfers)
  const finalOnes = transfers.filter(isFinal)
  const final = sum(finalOnes)
  const onTimeFinal = sum(finalOnes.filter(onTime))
  const confirmingOnTime = transfers.some((t) => onTime(t) && !isFinal(t))
  const pending = invoice.status === 'pending'
  // on time: mined in a block before expired_at, whenever its confirmations complete (docs/stablecoins.md#states)
  const pay = pending && onTimeFinal >= deposit.units ? { overpaid: onTimeFinal - deposit.units } : undefined
  // expired (or cancelled): every final transfer is money the invoice can no longer take
  const closed = invoice.status === 'expired' || invoice.status === 'failed'
  const late = closed ? finalOnes.filter((t) => t.reportedAt === null) : []
  const outOfWindow = now.getTime() > deposit.watchUntil.getTime() && transfers.every(isFinal)
  return {
    seen,
    final,
    confirmingOnTime: pending && confirmingOnTime,
    pay,
    late,
    done: pay !== undefined || invoice.status === 'paid' || outOfWindow,
  }
}

/** The token's units of an amount in the invoice currency's minor units; undefined when it is not exact. */
export function minorToUnits(minor: number, exponent: number, decimals: number): bigint | undefined {
  if (decimals >= exponent) return BigInt(minor) * 10n ** BigInt(decimals - exponent)
  const div = 10n ** BigInt(exponent - decimals)
  return BigInt(minor) % div === 0n ? BigInt(minor) / div : undefined
}

/** Units as decimal text in major units: 1500000 units of a 6-decimal token → "1.5". */
export function unitsToMajor(units: bigint, decimals: number): string {
  const neg = units < 0n
  const abs = neg ? -units : units
  const base = 10n ** BigInt(decimals)
  const whole = abs / base
  const frac = decimals === 0 ? '' : (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '')
  return `${neg ? '-' : ''}${whole}${frac === '' ? '' : `.${frac}`}`
}
