import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { GetInfoQuery } from '../app/get-invoice.js'
import { plainQuery } from './get-info-fast-path.js'

const PREFIX = '/api/invoice/getInfo?'

/** The reading plainQuery keeps, written the plain way: the query split into its pairs, each at its first '='. */
function bySplitting(url: string): GetInfoQuery | undefined {
  const query = url.slice(PREFIX.length)
  if (query.includes('%') || query.includes('+')) return undefined
  const found: Record<string, string> = {}
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=')
    if (eq < 0) return undefined
    const name = pair.slice(0, eq)
    if (!['merchant_id', 'invoice_id', 'order_id'].includes(name)) continue
    if (name in found) return undefined
    found[name] = pair.slice(eq + 1)
  }
  return { merchantId: found['merchant_id'], invoiceId: found['invoice_id'], orderId: found['order_id'] }
}

describe("getInfo's fast path: the query it reads itself (docs/performance.md#getinfos-fast-path)", () => {
  it('when the query is plain, then its three parameters; when it is not, then undefined (the framework reads it)', () => {
    const m = '01a21fb6-0ce8-7005-835e-134f826ab79c'
    expect(plainQuery(`${PREFIX}merchant_id=${m}&invoice_id=x&other=1`)).toEqual({
      merchantId: m,
      invoiceId: 'x',
      orderId: undefined,
    })
    expect(plainQuery(`${PREFIX}order_id=a=b&merchant_id=`)).toEqual({
      merchantId: '',
      invoiceId: undefined,
      orderId: 'a=b',
    })
    for (const q of ['', 'merchant_id', 'a=1&', 'a=1&&b=2', '&a=1', 'a&b=1', 'order_id=1&order_id=2', 'x=%41', 'x=a+b'])
      expect(plainQuery(PREFIX + q), q).toBeUndefined()
  })

  it('when any query is given, then the answer is that of splitting it into its pairs', () => {
    const part = fc.constantFrom(
      'merchant_id',
      'invoice_id',
      'order_id',
      'merchant_i',
      'order_idx',
      '=',
      '&',
      'a',
      '1',
      '%',
      '+',
      '#',
      '',
    )
    const query = fc.array(part, { maxLength: 12 }).map((ps) => ps.join(''))
    fc.assert(
      fc.property(fc.oneof(query, fc.string()), (q) => {
        expect(plainQuery(PREFIX + q)).toEqual(bySplitting(PREFIX + q))
      }),
      { numRuns: 5000 },
    )
  })
})
