import { describe, expect, it } from 'vitest'
import { combineSlices, headline, median, medianOfRuns, withRatios, type ProfileResult } from '../../bench/summary.mjs'

// What `npm run bench` prints and keeps (bench/summary.mjs): ratios to the floors as the headline, medians of runs.
const result = (key: string, rps: number, extra: Partial<ProfileResult> = {}): ProfileResult => ({
  key,
  profile: key,
  rps,
  p50_ms: 1,
  p99_ms: 5,
  errors: 0,
  cpu_us_per_request: 1_000_000 / rps,
  ...extra,
})
const oneRun = (bare: number, floor: number, service: number, errors = 0): ProfileResult[] =>
  withRatios([
    result('bare', bare),
    result('floor-getinfo', floor),
    result('getinfo', service, { floor: 'floor-getinfo', errors }),
    result('mixed', service / 2, { p99_ms: 9 }),
  ])

describe('bench summary', () => {
  it('takes the median of an odd count, the mean of the middle two of an even one, and skips what is missing', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([undefined, 7, Number.NaN])).toBe(7)
    expect(median([])).toBeUndefined()
  })

  it("makes one profile's alternating slices one measurement: req/s over all, each percentile the slices' median", () => {
    const slice = (requests: number, seconds: number, p99_ms: number, errors = 0) => ({
      requests,
      seconds,
      p50_ms: p99_ms / 4,
      p99_ms,
      errors,
    })
    const r = combineSlices([slice(20_000, 2, 8), slice(10_000, 2, 30), slice(30_000, 2.5, 9, 1)])
    // 60 000 requests in 6.5 s, not the mean of 10 000, 5 000 and 12 000 req/s
    expect(r.rps).toBeCloseTo(60_000 / 6.5, 10)
    expect(r.requests).toBe(60_000)
    expect(r.p99_ms).toBe(9)
    expect(r.p50_ms).toBe(2.25)
    expect(r.errors).toBe(1)
  })

  it('gives each profile its ratio to the bare server, and a profile with a floor its ratio to that floor', () => {
    const [bare, floor, getInfo, mixed] = oneRun(20_000, 12_000, 9_000)
    expect(bare?.ratio).toBe(1)
    expect(floor?.ratio).toBeCloseTo(0.6, 10)
    expect(getInfo?.ratio_to_floor).toBeCloseTo(0.75, 10)
    expect(getInfo?.ratio).toBeCloseTo(0.45, 10)
    expect(floor?.ratio_to_floor).toBeUndefined()
    expect(mixed?.ratio_to_floor).toBeUndefined()
  })

  it("turns runs into one: each figure's median, each run's own ratio's median, every run's errors added up", () => {
    const runs = [oneRun(20_000, 12_000, 9_000), oneRun(10_000, 10_000, 9_500, 2), oneRun(18_000, 11_000, 8_000, 1)]
    const [bare, , getInfo] = medianOfRuns(runs)
    expect(bare?.rps).toBe(18_000)
    expect(getInfo?.rps).toBe(9_000)
    // per run 0.75, 0.95, 0.727…: the median of those, not 9 000 / 11 000
    expect(getInfo?.ratio_to_floor).toBeCloseTo(0.75, 10)
    expect(getInfo?.errors).toBe(3)
    expect(medianOfRuns([runs[0]!])).toBe(runs[0])
  })

  it('puts each profile against its floor in the headline, with both CPU costs, then the failed requests', () => {
    const lines = headline(oneRun(20_000, 12_000, 9_000, 4))
    expect(lines).toEqual([
      "getinfo: 0.75 of its floor (9,000 against 12,000 req/s; the floor's CPU 83.3 µs/request, the service's 111.1)",
      'mixed p99: 9.00 ms; failed requests: 4',
    ])
  })
})
