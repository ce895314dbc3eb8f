import { describe, expect, it } from 'vitest'
import { fairShareCandidates, takeBeyondShare, takeFairShare, type ClaimShare } from './delivery.js'
import type { MerchantId } from './ids.js'

const A = 'mA' as MerchantId
const B = 'mB' as MerchantId
const C = 'mC' as MerchantId
const due = (...merchants: MerchantId[]) => merchants.map((merchantId, n) => ({ n, id: `d${n}`, merchantId }))
const share = (limit: number, perMerchant: number, inFlight: [MerchantId, number][] = [], answering: MerchantId[] = [A, B, C]): ClaimShare => ({
  limit,
  perMerchant,
  inFlight: new Map(inFlight),
  answering: new Set(answering),
})
const taken = (d: ReturnType<typeof due>, s: ClaimShare) => takeFairShare(d, s).map((x) => x.n)

describe('a claim`s fair share of the dispatcher`s slots', () => {
  it('when one merchant`s deliveries come first, then it gets its share and the slots left go to the next ones in due order', () => {
    expect(taken(due(A, A, A, A, B, A, C), share(4, 2))).toEqual([0, 1, 4, 6])
  })

  it('when a merchant has deliveries in flight, then they count against its share', () => {
    expect(taken(due(A, A, B, B, B), share(10, 2, [[A, 1], [B, 2]]))).toEqual([0])
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
    expect(fairShareCandidates(share(4, 2, [[A, 1], [B, 7]]))).toBe(7)
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

  it('when no merchant is at its share, then nothing is taken beyond the shares (the first pass saw every due delivery)', () => {
    expect(takeBeyondShare(due(A, B), share(8, 2, [[A, 1]]), [])).toEqual([])
  })
})
