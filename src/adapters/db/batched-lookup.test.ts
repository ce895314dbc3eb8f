import { describe, expect, it } from 'vitest'
import { BatchedLookup } from './batched-lookup.js'

/** A lookup over a fixed table that records the keys of each query it is asked to run. */
function recording(
  table: Record<string, number>,
  fail: (keys: string[]) => unknown = () => undefined,
  opts: { maxKeys?: number; retryAlone?: (err: unknown) => boolean } = { maxKeys: 2 },
) {
  const queries: string[][] = []
  const lookup = new BatchedLookup<string, number>(async (keys) => {
    queries.push(keys)
    const err = fail(keys)
    if (err !== undefined) throw err
    return new Map(keys.filter((k) => k in table).map((k) => [k, table[k]!]))
  }, opts)
  return { lookup, queries }
}

const table = { a: 1, b: 2, c: 3, d: 4, e: 5 }

describe('BatchedLookup', () => {
  it('when lookups are made in one pass of the event loop, then one query gets their keys once each, and each lookup its own answer', async () => {
    const { lookup, queries } = recording(table)
    const answers = await Promise.all([lookup.load('b'), lookup.load('a'), lookup.load('b'), lookup.load('missing')])
    expect(answers).toEqual([2, 1, 2, undefined])
    // maxKeys is 2 here: three distinct keys make two queries
    expect(queries).toEqual([['b', 'a'], ['missing']])
  })

  it('when lookups are made in different passes, then each pass has its own query', async () => {
    const { lookup, queries } = recording(table)
    expect(await lookup.load('a')).toBe(1)
    expect(await lookup.load('a')).toBe(1)
    await new Promise((r) => setImmediate(r))
    expect(await lookup.load('c')).toBe(3)
    expect(queries).toEqual([['a'], ['a'], ['c']])
  })

  it("when a pass has more keys than one query takes, then they are split and only the failing query's lookups fail", async () => {
    const boom = new Error('connection lost')
    const { lookup, queries } = recording(table, (keys) => (keys.includes('c') ? boom : undefined))
    const answers = await Promise.allSettled(['a', 'b', 'c', 'd', 'e'].map((k) => lookup.load(k)))
    expect(queries).toEqual([['a', 'b'], ['c', 'd'], ['e']])
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : a.reason))).toEqual([1, 2, boom, boom, 5])
  })

  it("when a query fails over one bad key and the error may be that key's, then each key is asked again alone and only that lookup fails", async () => {
    const refused = Object.assign(new Error('invalid byte sequence'), { code: '22021' })
    const { lookup, queries } = recording(table, (keys) => (keys.includes('bad\u0000') ? refused : undefined), {
      retryAlone: (err) => (err as { code?: string }).code === '22021',
    })
    const answers = await Promise.allSettled(['a', 'bad\u0000', 'b', 'a'].map((k) => lookup.load(k)))
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : a.reason))).toEqual([1, refused, 2, 1])
    expect(queries).toEqual([['a', 'bad\u0000', 'b'], ['a'], ['bad\u0000'], ['b']])
  })

  it("when a query fails with an error that is not a key's (the connection is lost), then every lookup of it fails, without asking again", async () => {
    const lost = new Error('connection lost')
    const { lookup, queries } = recording(table, () => lost, { retryAlone: (err) => err !== lost })
    const answers = await Promise.allSettled(['a', 'b'].map((k) => lookup.load(k)))
    expect(answers.map((a) => a.status === 'rejected' && a.reason)).toEqual([lost, lost])
    expect(queries).toEqual([['a', 'b']])
  })

  it('when the query throws instead of rejecting, then the lookups reject with its error and the next pass works', async () => {
    const boom = new Error('bad parameter')
    let calls = 0
    const lookup = new BatchedLookup<string, number>((keys) => {
      calls += 1
      if (calls === 1) throw boom
      return Promise.resolve(new Map(keys.map((k) => [k, k.length])))
    })
    await expect(Promise.all([lookup.load('x'), lookup.load('yy')])).rejects.toBe(boom)
    expect(await lookup.load('zzz')).toBe(3)
  })

  it('refuses a batch size that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(() => new BatchedLookup(async () => new Map(), { maxKeys: bad })).toThrow(RangeError)
  })
})
