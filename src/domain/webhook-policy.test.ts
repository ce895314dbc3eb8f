import { describe, expect, it } from 'vitest'
import { firstAttemptDelayMs, nextStep, retryDelayMs, verdictOf } from './webhook-policy.js'

const DEFAULT = [0, 5, 300, 1800, 7200, 18000, 36000, 36000]
const ENDED = new Date('2026-11-22T10:00:00.000Z')

describe('verdictOf (docs/webhooks.md#delivery)', () => {
  it.each([
    [200, 'succeeded'],
    [201, 'succeeded'],
    [204, 'succeeded'],
    [299, 'succeeded'],
    [410, 'gone'],
    [null, 'retry'],
    [100, 'retry'],
    [301, 'retry'],
    [302, 'retry'],
    [304, 'retry'],
    [400, 'retry'],
    [404, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
  ] as const)('when the answer is %s, then the attempt %s', (code, verdict) => {
    expect(verdictOf(code)).toBe(verdict)
  })
})

describe('the retry schedule', () => {
  it('when the default schedule runs, then the first attempt is at once and retries follow after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(firstAttemptDelayMs(DEFAULT)).toBe(0)
    const delays = [1, 2, 3, 4, 5, 6, 7].map((k) => retryDelayMs(k, DEFAULT, 0.5))
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])
    expect(retryDelayMs(8, DEFAULT, 0.5)).toBeUndefined()
  })

  it('when random is at its bounds, then the jitter stays within ±10 %', () => {
    expect(retryDelayMs(1, DEFAULT, 0)).toBe(4_500)
    expect(retryDelayMs(1, DEFAULT, 0.999999)).toBe(5_500)
    for (let r = 0; r < 1; r += 0.01) {
      const d = retryDelayMs(3, DEFAULT, r)!
      expect(d).toBeGreaterThanOrEqual(1_620_000)
      expect(d).toBeLessThanOrEqual(1_980_000)
    }
  })

  it('when the schedule starts with a delay, then the first attempt waits for it', () => {
    expect(firstAttemptDelayMs([2.5, 1])).toBe(2500)
    expect(firstAttemptDelayMs([])).toBe(0)
  })
})

describe('nextStep', () => {
  const step = (attemptsMade: number, statusCode: number | null, schedule = DEFAULT, random = 0.5) =>
    nextStep({ attemptsMade, statusCode, endedAt: ENDED, schedule, random })

  it('when an attempt gets a 2xx, then the delivery succeeded', () => {
    expect(step(1, 200)).toEqual({ status: 'succeeded', nextAttemptAt: null })
    expect(step(8, 204)).toEqual({ status: 'succeeded', nextAttemptAt: null })
  })

  it('when an attempt fails and the schedule has more, then the next is due its delay after the end of this one', () => {
    expect(step(1, 500)).toEqual({ status: 'pending', nextAttemptAt: new Date(ENDED.getTime() + 5_000) })
    expect(step(2, null)).toEqual({ status: 'pending', nextAttemptAt: new Date(ENDED.getTime() + 300_000) })
  })

  it('when the last attempt of the schedule fails, then the delivery failed (exhausted)', () => {
    expect(step(8, 500)).toEqual({ status: 'failed', nextAttemptAt: null, reason: 'exhausted' })
    expect(step(1, 500, [0])).toEqual({ status: 'failed', nextAttemptAt: null, reason: 'exhausted' })
  })

  it('when the answer is 410 Gone, then the delivery failed at once, whatever is left of the schedule', () => {
    expect(step(1, 410)).toEqual({ status: 'failed', nextAttemptAt: null, reason: 'gone' })
  })
})
