import { describe, expect, it } from 'vitest'
import { canMoveAttempt, decideAttempt, nextCheckDelaySeconds, type AttemptState } from './payment-attempt.js'

// docs/providers.md#status-mapping and #late-payments as a table: (attempt state, acquirer's word, invoice status) → what happens
describe('decideAttempt', () => {
  const cases: [AttemptState, AttemptState, 'pending' | 'hold' | 'paid' | 'failed' | 'expired', string][] = [
    ['open', 'held', 'pending', 'invoice→hold'],
    ['open', 'succeeded', 'pending', 'invoice→paid'],
    ['starting', 'succeeded', 'pending', 'invoice→paid'],
    ['held', 'succeeded', 'hold', 'invoice→paid'],
    ['held', 'canceled', 'hold', 'invoice→failed'],
    ['open', 'canceled', 'pending', 'nothing'],
    ['open', 'ended', 'pending', 'nothing'],
    // the merchant's capture or cancel moved the invoice before the acquirer's word on it arrived
    ['held', 'succeeded', 'paid', 'nothing'],
    ['held', 'canceled', 'failed', 'nothing'],
    // money for an invoice that can no longer take it
    ['open', 'held', 'expired', 'late void'],
    ['open', 'held', 'failed', 'late void'],
    ['open', 'succeeded', 'expired', 'late refund'],
    ['open', 'succeeded', 'paid', 'late refund'],
    ['open', 'held', 'hold', 'late void'],
    ['held', 'succeeded', 'failed', 'late refund'],
  ]
  for (const [state, word, invoice, expected] of cases) {
    it(`when an attempt ${state} hears ${word} on a ${invoice} invoice, then ${expected}`, () => {
      const d = decideAttempt({ state }, word, invoice)
      const got =
        d.late !== undefined ? `late ${d.late}` : d.invoiceTo !== undefined ? `invoice→${d.invoiceTo}` : 'nothing'
      expect(got).toBe(expected)
      expect(d.moved).toBe(true)
      expect(d.state).toBe(word)
    })
  }

  it('when a word is stale or repeated (held after succeeded, succeeded twice), then nothing moves', () => {
    for (const [from, word] of [
      ['succeeded', 'held'],
      ['succeeded', 'succeeded'],
      ['canceled', 'held'],
      ['held', 'open'],
      ['ended', 'succeeded'],
    ] as const) {
      const d = decideAttempt({ state: from }, word, 'pending')
      expect(d).toEqual({ state: from, moved: false, invoiceTo: undefined, late: undefined })
      expect(canMoveAttempt(from, word)).toBe(false)
    }
  })
})

describe('nextCheckDelaySeconds', () => {
  it('when checks bring no news, then each waits twice as long, never more than the cap', () => {
    expect([0, 1, 2, 3, 10, 60].map((n) => nextCheckDelaySeconds(n, 300, 3600))).toEqual([
      300, 600, 1200, 2400, 3600, 3600,
    ])
  })
})
