import { describe, expect, it } from 'vitest'
import type { InvoiceId, MerchantId } from './ids.js'
import type { Minor } from './money.js'
import {
  activeRefundTotal,
  canMoveRefund,
  decideRefundAmount,
  isIdempotencyKey,
  refundedTotal,
  refundRequestFingerprint,
  settleRefund,
  validateRefundRequest,
  type Refund,
  type RefundId,
  type RefundStatus,
} from './refund.js'

const m = (n: number) => n as Minor
const T0 = new Date('2026-11-22T03:00:00.000Z')
const T1 = new Date('2026-11-22T03:00:05.000Z')

const refund = (over: Partial<Refund> = {}): Refund => ({
  id: 'r1' as RefundId,
  invoiceId: 'i1' as InvoiceId,
  merchantId: 'm1' as MerchantId,
  provider: 'sandbox',
  amount: m(500),
  currency: 'RUB',
  status: 'pending',
  reason: null,
  failureReason: null,
  providerRefundId: null,
  idempotencyKey: 'k',
  requestHash: 'h',
  checks: 0,
  nextCheckAt: T0,
  createdAt: T0,
  updatedAt: T0,
  ...over,
})

// docs/refunds.md#statuses as a table: (from, to) → allowed
describe('canMoveRefund', () => {
  const cases: [RefundStatus, RefundStatus, boolean][] = [
    ['pending', 'succeeded', true],
    ['pending', 'failed', true],
    ['pending', 'pending', false],
    // the acquirer failed a refund it had completed (Stripe: a closed card account)
    ['succeeded', 'failed', true],
    ['succeeded', 'pending', false],
    ['failed', 'succeeded', false],
    ['failed', 'pending', false],
  ]
  for (const [from, to, allowed] of cases)
    it(`when a ${from} refund hears ${to}, then ${allowed ? 'it moves' : 'nothing moves'}`, () =>
      expect(canMoveRefund(from, to)).toBe(allowed))
})

describe('settleRefund', () => {
  it('when a pending refund succeeds, then it is final with its event and the acquirer id', () => {
    const out = settleRefund(refund(), { status: 'succeeded', providerRefundId: 're_1' }, T1)
    expect(out?.event).toBe('refund.succeeded')
    expect(out?.refund).toMatchObject({ status: 'succeeded', providerRefundId: 're_1', nextCheckAt: null })
    expect(out?.refund.failureReason).toBeNull()
  })
  it('when a pending refund is refused, then it fails with the reason', () => {
    const out = settleRefund(refund(), { status: 'failed', providerRefundId: null, failureReason: 'no funds' }, T1)
    expect(out?.event).toBe('refund.failed')
    expect(out?.refund).toMatchObject({ status: 'failed', failureReason: 'no funds' })
  })
  it('when a duplicate or stale word arrives, then nothing changes', () => {
    expect(settleRefund(refund({ status: 'succeeded' }), { status: 'succeeded', providerRefundId: 'x' }, T1)).toBe(
      undefined,
    )
    expect(settleRefund(refund({ status: 'succeeded' }), { status: 'pending', providerRefundId: 'x' }, T1)).toBe(
      undefined,
    )
    expect(settleRefund(refund({ status: 'failed' }), { status: 'failed', providerRefundId: null }, T1)).toBe(undefined)
    expect(settleRefund(refund({ status: 'failed' }), { status: 'succeeded', providerRefundId: 'x' }, T1)).toBe(
      undefined,
    )
  })
  it('when the acquirer fails a refund it had completed, then it fails with the reason and refund.failed', () => {
    const done = refund({ status: 'succeeded', providerRefundId: 're_3', nextCheckAt: null })
    const out = settleRefund(
      done,
      {
        status: 'failed',
        providerRefundId: 're_3',
        failureReason: 'Stripe failed the refund: expired_or_canceled_card',
      },
      T1,
    )
    expect(out?.event).toBe('refund.failed')
    expect(out?.refund).toMatchObject({
      status: 'failed',
      providerRefundId: 're_3',
      failureReason: 'Stripe failed the refund: expired_or_canceled_card',
      nextCheckAt: null,
      updatedAt: T1,
    })
  })
  it('when the acquirer says pending with its id, then the id is learned without an event', () => {
    const out = settleRefund(refund(), { status: 'pending', providerRefundId: 're_2' }, T1)
    expect(out?.event).toBeUndefined()
    expect(out?.refund).toMatchObject({ status: 'pending', providerRefundId: 're_2' })
    expect(
      settleRefund(refund({ providerRefundId: 're_2' }), { status: 'pending', providerRefundId: 're_2' }, T1),
    ).toBe(undefined)
  })
})

describe('refund arithmetic in minor units', () => {
  const list = [
    { amount: m(300), status: 'succeeded' as const },
    { amount: m(200), status: 'pending' as const },
    { amount: m(1000), status: 'failed' as const },
  ]
  it('counts every refund that is not failed against the amount, and only succeeded ones as refunded', () => {
    expect(activeRefundTotal(list)).toBe(500)
    expect(refundedTotal(list)).toBe(300)
    expect(activeRefundTotal([])).toBe(0)
  })
  // (requested, invoice amount, active) → amount taken, or refused with what remains
  const cases: [number | undefined, number, number, string][] = [
    [undefined, 1000, 0, 'ok 1000'],
    [undefined, 1000, 300, 'ok 700'],
    [700, 1000, 300, 'ok 700'],
    [701, 1000, 300, 'refused, 700 left'],
    [1, 1000, 1000, 'refused, 0 left'],
    [undefined, 1000, 1000, 'refused, 0 left'],
    [1, 1, 0, 'ok 1'],
  ]
  for (const [requested, amount, active, expected] of cases)
    it(`when ${requested ?? 'the rest'} is asked of ${amount} with ${active} refunded, then ${expected}`, () => {
      const d = decideRefundAmount(requested === undefined ? undefined : m(requested), m(amount), m(active))
      expect(d.ok ? `ok ${d.amount}` : `refused, ${d.remaining} left`).toBe(expected)
    })
})

describe('validateRefundRequest', () => {
  // create's amount rules: a string or a number, at most the currency's decimals, > 0
  const cases: [number | string, number, string][] = [
    ['10.00', 2, 'ok 1000'],
    [10.5, 2, 'ok 1050'],
    ['5', 0, 'ok 5'],
    ['10.001', 2, 'must have at most 2 decimal places for RUB'],
    ['0', 2, 'must be greater than 0'],
    ['-1', 2, 'must be a positive decimal number such as 100 or "100.50" (no sign, spaces or exponent)'],
    ['1e3', 2, 'must be a positive decimal number such as 100 or "100.50" (no sign, spaces or exponent)'],
    [-3, 2, 'must be a positive decimal number without exponent'],
    ['1000000000000000', 2, 'is too large'],
  ]
  for (const [amount, exponent, expected] of cases)
    it(`when amount ${JSON.stringify(amount)} is asked with exponent ${exponent}, then ${expected}`, () => {
      const v = validateRefundRequest({ amount }, 'RUB', exponent)
      expect(v.ok ? `ok ${v.amount}` : v.errors[0]?.message).toBe(expected)
    })
  it('when no amount is given, then the rest is meant (undefined)', () => {
    expect(validateRefundRequest({}, 'RUB', 2)).toEqual({ ok: true, amount: undefined, reason: null })
  })
  it('when the reason is over 500 characters, then it is named', () => {
    const v = validateRefundRequest({ reason: 'x'.repeat(501) }, 'RUB', 2)
    expect(v.ok ? 'ok' : v.errors.map((e) => e.field)).toEqual(['reason'])
    expect(validateRefundRequest({ reason: '€'.repeat(500) }, 'RUB', 2).ok).toBe(true)
  })
  it('when both fields are bad, then both are named at once', () => {
    const v = validateRefundRequest({ amount: 'x', reason: 'a\u0000' }, 'RUB', 2)
    expect(v.ok ? [] : v.errors.map((e) => e.field)).toEqual(['amount', 'reason'])
  })
})

describe('idempotency', () => {
  it('takes 1–255 printable ASCII characters as a key', () => {
    expect(isIdempotencyKey('a')).toBe(true)
    expect(isIdempotencyKey('x'.repeat(255))).toBe(true)
    expect(isIdempotencyKey('')).toBe(false)
    expect(isIdempotencyKey('x'.repeat(256))).toBe(false)
    expect(isIdempotencyKey('ключ')).toBe(false)
    expect(isIdempotencyKey('a\tb')).toBe(false)
  })
  it('tells the same request from another one whatever the amount was written as', () => {
    expect(refundRequestFingerprint('i', m(1000), null)).toBe(refundRequestFingerprint('i', m(1000), null))
    expect(refundRequestFingerprint('i', m(1000), null)).not.toBe(refundRequestFingerprint('i', undefined, null))
    expect(refundRequestFingerprint('i', m(1000), null)).not.toBe(refundRequestFingerprint('i', m(1000), 'r'))
  })
})
