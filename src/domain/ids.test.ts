import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isUuid, parseUuid } from './ids.js'

/** What parseUuid has always meant: the text lower-cased, taken if that is a canonical UUID. */
function byLowerCase(text: string): string | undefined {
  const lower = text.toLowerCase()
  return isUuid(lower) ? lower : undefined
}

const UUID = '01a21fb6-0ce8-7005-835e-134f826ab79c'
// besides hex digits and dashes in both cases: characters whose lower case differs from them or leaves ASCII
// (the Kelvin sign, a dotted capital I, a fullwidth A, the long s), and others a UUID cannot hold
const CHARS = [...'0123456789abcdefABCDEF-', '\u212a', '\u0130', '\uff21', '\u017f', 'g', 'G', ' ', '\u0000']

describe('parseUuid', () => {
  it('when the text is a UUID in any case, then its lower case; when it is not one, then undefined', () => {
    expect(parseUuid(UUID)).toBe(UUID)
    expect(parseUuid(UUID.toUpperCase())).toBe(UUID)
    expect(parseUuid('01A21fb6-0CE8-7005-835e-134f826AB79C')).toBe(UUID)
    for (const bad of ['', ` ${UUID}`, `${UUID} `, UUID.slice(1), UUID.replace(/-/g, ''), UUID.replace('c', 'g')])
      expect(parseUuid(bad)).toBeUndefined()
    // fullwidth letters lower-case to fullwidth letters, not to hex digits
    expect(parseUuid(UUID.replace(/a/g, '\uff21'))).toBeUndefined()
  })

  it('when any text is given, then the answer is that of lower-casing it first', () => {
    const char = fc.constantFrom(...CHARS)
    // a UUID with some of its characters replaced and each letter in either case
    const nearUuid = fc
      .tuple(
        fc.uuid(),
        fc.array(fc.tuple(fc.nat(35), char), { maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }),
      )
      .map(([u, edits, upper]) => {
        const cs = [...u]
        for (const [at, c] of edits) cs[at] = c
        return cs.map((c, i) => (upper[i] === true ? c.toUpperCase() : c)).join('')
      })
    const shaped = fc.array(char, { minLength: 36, maxLength: 36 }).map((cs) => cs.join(''))
    fc.assert(
      fc.property(fc.oneof(nearUuid, shaped, fc.string()), (text) => {
        expect(parseUuid(text)).toBe(byLowerCase(text))
      }),
      { numRuns: 2000 },
    )
  })
})
