import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fairShareCandidates, takeBeyondShare, takeFairShare, unprovenShare, type ClaimShare } from './delivery.js'
import type { MerchantId } from './ids.js'

const A = 'mA' as MerchantId
const B = 'mB' as MerchantId
const C = 'mC' as MerchantId
const due = (...merchants: MerchantId[]) => merchants.map((merchantId, n) => ({ n, id: `d${n}`, merchantId }))
const share = (
  limit: number,
  perMerchant: number,
  inFlight: [MerchantId, number][] = [],
  answering: MerchantId[] = [A, B, C],
  perUnproven = perMerchant,
): ClaimShare => ({
  limit,
  perMerchant,
  perUnproven,
  inFlight: new Map(inFlight),
  answering: new Set(answering),
})
const taken = (d: ReturnType<typeof due>, s: ClaimShare) => takeFairShare(d, s).map((x) => x.n)

describe('a claim`s fair share of the dispatcher`s slots', () => {
  it('when one merchant`s deliveries come first, then it gets its share and the slots left go to the next ones in due order', () => {
    expect(taken(due(A, A, A, A, B, A, C), share(4, 2))).toEqual([0, 1, 4, 6])
  })

  it('when a merchant has deliveries in flight, then they count against its share', () => {
    expect(
      taken(
        due(A, A, B, B, B),
        share(10, 2, [
          [A, 1],
          [B, 2],
        ]),
      ),
    ).toEqual([0])
    expect(taken(due(A, B), share(10, 2, [[A, 5]]))).toEqual([1])
  })

  it('when there are fewer free slots than due deliveries, then only as many are taken, oldest due first', () => {
    expect(taken(due(A, B, C), share(2, 5))).toEqual([0, 1])
    expect(taken(due(A, B, C), share(0, 5))).toEqual([])
  })

  it('when the share is the whole concurrency, then a single merchant may use every free slot', () => {
    expect(taken(due(A, A, A, A), share(4, 4))).toEqual([0, 1, 2, 3])
  })

  it('then the candidates to read are the free slots plus what each merchant has in flight, at most its share', () => {
    expect(fairShareCandidates(share(4, 2))).toBe(4)
    expect(
      fairShareCandidates(
        share(4, 2, [
          [A, 1],
          [B, 7],
        ]),
      ),
    ).toBe(7)
  })

  it('when a merchant`s endpoint has not answered here (no attempt yet, or the last one failed), then it gets the unproven share: a quarter, rounded up', () => {
    expect([1, 2, 4, 5, 16, 17].map(unprovenShare)).toEqual([1, 1, 1, 2, 4, 5])
    expect(taken(due(A, A, A, B, B, B, C), share(10, 4, [], [B], 1))).toEqual([0, 3, 4, 5, 6])
    // what it has in flight counts against it
    expect(taken(due(A, A, B), share(10, 4, [[A, 1]], [], 1))).toEqual([2])
    // once it answers, the whole share
    expect(taken(due(A, A, A, A, A), share(10, 4, [[A, 1]], [A], 1))).toEqual([0, 1, 2])
  })

  it('then reading fairShareCandidates of each merchant`s first due deliveries, oldest due first, finds what reading them all would', () => {
    const M = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'] as MerchantId[]
    const arb = fc.record({
      limit: fc.integer({ min: 1, max: 12 }),
      perMerchant: fc.integer({ min: 1, max: 8 }),
      unproven: fc.integer({ min: 1, max: 8 }),
      inFlight: fc.array(fc.tuple(fc.constantFrom(...M), fc.integer({ min: 1, max: 9 })), { maxLength: 4 }),
      answering: fc.subarray(M),
      due: fc.array(fc.constantFrom(...M), { maxLength: 60 }),
    })
    fc.assert(
      fc.property(arb, (a) => {
        const s = share(a.limit, a.perMerchant, a.inFlight, a.answering, Math.min(a.unproven, a.perMerchant))
        // what the per-merchant seek reads: each merchant's first min(perMerchant, limit) due, none of merchants at their share
        const seen = new Map<MerchantId, number>()
        const candidates = due(...a.due).filter((d) => {
          const n = (seen.get(d.merchantId) ?? 0) + 1
          seen.set(d.merchantId, n)
          const share = a.answering.includes(d.merchantId) ? s.perMerchant : s.perUnproven
          return n <= Math.min(s.perMerchant, s.limit) && (s.inFlight.get(d.merchantId) ?? 0) < share
        })
        expect(takeFairShare(candidates.slice(0, fairShareCandidates(s)), s)).toEqual(takeFairShare(candidates, s))
      }),
      { numRuns: 3000 },
    )
  })

  it('when a merchant is at its share, then beyond the shares a claim takes the oldest due of answering merchants, up to the free slots left above a reserve of one share', () => {
    const d = due(A, A, A, A, A, A, A, A, A, A)
    const beyond = (s: ClaimShare, taken: ReturnType<typeof due>) => takeBeyondShare(d, s, taken).map((x) => x.n)
    // 8 free, A has its 2 in flight: 6 more of A's, 2 slots stay free
    expect(beyond(share(8, 2, [[A, 2]]), [])).toEqual([0, 1, 2, 3, 4, 5])
    // what the first pass took counts, and is not taken twice
    expect(beyond(share(8, 2), d.slice(0, 2))).toEqual([2, 3, 4, 5])
    expect(beyond(share(4, 2), d.slice(0, 2))).toEqual([])
  })

  it('when the merchant at its share does not answer (its last attempt failed), then nothing of it is taken beyond its share', () => {
    expect(takeBeyondShare(due(A, A, B, A), share(8, 2, [[A, 2]], [B]), []).map((x) => x.n)).toEqual([2])
    expect(takeBeyondShare(due(A, A, A), share(8, 2, [[A, 2]], []), [])).toEqual([])
  })

  it('when an unproven merchant is at its share, then beyond the shares a claim takes only answering merchants` deliveries', () => {
    expect(
      takeBeyondShare(
        due(A, A, A, B, B, B, B, B),
        share(12, 4, [], [B], 1),
        due(A, A, A, B, B, B, B, B).filter((d) => [0, 3, 4, 5, 6].includes(d.n)),
      ).map((x) => x.n),
    ).toEqual([7])
  })

  it('when no merchant is at its share, then nothing is taken beyond the shares (the first pass saw every due delivery)', () => {
    expect(takeBeyondShare(due(A, B), share(8, 2, [[A, 1]]), [])).toEqual([])
  })
})
