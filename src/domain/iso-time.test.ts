import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoTime } from './iso-time.js'

describe('isoTime', () => {
  it('equals toISOString for every instant of years 0000–9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        const at = new Date(ms)
        expect(isoTime(at)).toBe(at.toISOString())
      }),
      { numRuns: 20_000 },
    )
  })

  it('equals toISOString at the edges: epoch, leap days, century and year ends', () => {
    const edges = [
      0, -1, 1, 951_782_400_000 /* 2000-02-29 */, 4_107_542_400_000 /* 2100-03-01 */,
      1_709_164_800_000 /* 2024-02-29 */, -62_167_219_200_000, 253_402_300_799_999, -2_203_891_200_001,
      1_735_689_599_999,
    ]
    for (const ms of edges) expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString())
  })

  it('keeps each date right when consecutive calls alternate between days (the last day is remembered)', () => {
    const instants = [
      1_795_727_692_876,
      1_795_727_692_876 - 86_400_000,
      1_795_727_692_877,
      -1,
      0,
      86_399_999,
      86_400_000,
    ]
    for (const ms of [...instants, ...instants.reverse()])
      expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString())
  })

  it('hands other years and invalid dates to toISOString', () => {
    expect(isoTime(new Date(253_402_300_800_000))).toBe('+010000-01-01T00:00:00.000Z')
    expect(isoTime(new Date(-62_167_219_200_001))).toBe('-000001-12-31T23:59:59.999Z')
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError)
  })
})
