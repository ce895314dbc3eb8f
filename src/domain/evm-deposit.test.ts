import { describe, expect, it } from 'vitest'
import { decideDeposit, minorToUnits, unitsToMajor, type SeenTransfer } from './evm-deposit.js'
import type { InvoiceId } from './ids.js'

const EXPIRES = new Date('2026-11-22T11:00:00Z')
const transfer = (amount: bigint, confirmations: number, blockTime = '2026-11-22T10:30:00Z'): SeenTransfer => ({
  chainId: 1,
  txHash: `0x${amount}${confirmations}`,
  logIndex: 0,
  invoiceId: 'inv' as InvoiceId,
  blockNumber: 1n,
  blockHash: '0xb',
  blockTime: new Date(blockTime),
  amount,
  confirmations,
  reportedAt: null,
  createdAt: new Date(blockTime),
})
const deposit = { units: 10_000_000n, watchUntil: new Date('2026-11-23T11:00:00Z') }
const pending = { status: 'pending' as const, expiresAt: EXPIRES }
const before = new Date('2026-11-22T10:45:00Z')
const after = new Date('2026-11-22T11:30:00Z')

describe('what a deposit invoice transfers call for (docs/stablecoins.md#states)', () => {
  it('converts between minor units and token units exactly', () => {
    expect(minorToUnits(1050, 2, 6)).toBe(10_500_000n)
    expect(minorToUnits(1050, 2, 18)).toBe(10_500_000_000_000_000_000n)
    expect(minorToUnits(1055, 2, 1)).toBeUndefined()
    expect(minorToUnits(1000, 2, 1)).toBe(100n)
    expect(unitsToMajor(10_500_000n, 6)).toBe('10.5')
    expect(unitsToMajor(7n, 6)).toBe('0.000007')
    expect(unitsToMajor(3_000_000n, 6)).toBe('3')
  })

  it('when the full amount is final, then pay; more is overpaid; less waits for a top-up', () => {
    expect(decideDeposit(pending, deposit, [transfer(10_000_000n, 3)], 3, before).pay).toEqual({ overpaid: 0n })
    expect(decideDeposit(pending, deposit, [transfer(12_000_000n, 3)], 3, before).pay).toEqual({ overpaid: 2_000_000n })
    const under = decideDeposit(pending, deposit, [transfer(4_000_000n, 3)], 3, before)
    expect(under.pay).toBeUndefined()
    expect(under.final).toBe(4_000_000n)
    const topped = decideDeposit(pending, deposit, [transfer(4_000_000n, 5), transfer(6_000_000n, 3)], 3, before)
    expect(topped.pay).toEqual({ overpaid: 0n })
  })

  it('when a transfer mined before expired_at still confirms, then the invoice waits, and pays once final', () => {
    const confirming = decideDeposit(pending, deposit, [transfer(10_000_000n, 1)], 3, after)
    expect(confirming).toMatchObject({ confirmingOnTime: true, pay: undefined })
    expect(decideDeposit(pending, deposit, [transfer(10_000_000n, 3)], 3, after).pay).toEqual({ overpaid: 0n })
  })

  it('when a transfer is mined after expired_at, then it does not pay: on an expired invoice it is late', () => {
    const late = transfer(10_000_000n, 3, '2026-11-22T11:10:00Z')
    expect(decideDeposit(pending, deposit, [late], 3, after)).toMatchObject({ pay: undefined, confirmingOnTime: false })
    const expired = decideDeposit({ ...pending, status: 'expired' }, deposit, [late], 3, after)
    expect(expired.late).toEqual([late])
    expect(
      decideDeposit({ ...pending, status: 'expired' }, deposit, [{ ...late, reportedAt: after }], 3, after).late,
    ).toEqual([])
  })
})
