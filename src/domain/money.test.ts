import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ALL_CURRENCY_CODES, currencyExponent } from './currencies.js'
import {
  asMinor,
  computeFee,
  formatAmount,
  limitToMinor,
  MAX_MINOR,
  numberText,
  parseAmount,
  toMajorNumber,
  type Fee,
  type Minor,
} from './money.js'

const RUNS = { numRuns: 1000 }
const exponentArb = fc.integer({ min: 0, max: 4 })
const m = (n: number): Minor => asMinor(n)

/** The minor amount of a successful parse; fails the test otherwise. */
function parsed(text: string, exponent: number): number {
  const r = parseAmount(text, exponent)
  if (!r.ok) throw new Error(`expected "${text}" @${exponent} to parse, got ${r.reason}`)
  return r.minor
}

describe('parseAmount', () => {
  it.each([
    ['100.50', 2, 10050],
    ['100.5', 2, 10050],
    ['100', 2, 10000],
    ['0.01', 2, 1],
    ['5', 0, 5],
    ['1.005', 3, 1005],
    ['0.0001', 4, 1],
    ['007.10', 2, 710],
    ['0', 2, 0],
  ])('when "%s" is parsed with exponent %i, then it is %i minor units', (text, exponent, minor) => {
    expect(parseAmount(text, exponent)).toEqual({ ok: true, minor })
  })

  it('when the text has more decimals than the currency allows, then it is refused even if they are zeros ("100.500" for RUB)', () => {
    expect(parseAmount('100.500', 2)).toEqual({ ok: false, reason: 'too_many_decimals' })
    expect(parseAmount('1.005', 2)).toEqual({ ok: false, reason: 'too_many_decimals' })
    expect(parseAmount('5.0', 0)).toEqual({ ok: false, reason: 'too_many_decimals' })
    expect(parseAmount('1.00001', 4)).toEqual({ ok: false, reason: 'too_many_decimals' })
  })

  it.each([
    '1e21',
    '1e3',
    '-1',
    ' 1',
    '1 ',
    '1.',
    '.5',
    '+1',
    '0x10',
    '',
    '1,00',
    '1.2.3',
    'NaN',
    'Infinity',
    '１',
    '1_000',
  ])('when the text is "%s", then it is refused as a format error', (text) => {
    for (let e = 0; e <= 4; e++) expect(parseAmount(text, e)).toEqual({ ok: false, reason: 'format' })
  })

  it('when the amount has more than 15 digits of minor units, then it is refused as too large', () => {
    expect(parseAmount(String(MAX_MINOR), 0)).toEqual({ ok: true, minor: MAX_MINOR })
    expect(parseAmount(String(MAX_MINOR + 1), 0)).toEqual({ ok: false, reason: 'too_large' })
    expect(parseAmount('99999999999999999999', 2)).toEqual({ ok: false, reason: 'too_large' })
    expect(parseAmount('90071992547409.92', 2)).toEqual({ ok: false, reason: 'too_large' })
    expect(parseAmount('9999999999999.99', 2)).toEqual({ ok: true, minor: 999_999_999_999_999 })
    expect(parseAmount('10000000000000.00', 2)).toEqual({ ok: false, reason: 'too_large' })
  })

  it('when leading zeros pad a long number, then they do not count towards the size limit', () => {
    expect(parseAmount('00000000000000000000001.00', 2)).toEqual({ ok: true, minor: 100 })
  })
})

describe('formatAmount', () => {
  it.each([
    [10050, 2, '100.50'],
    [5, 0, '5'],
    [1, 2, '0.01'],
    [0, 2, '0.00'],
    [0, 0, '0'],
    [1005, 3, '1.005'],
    [1, 4, '0.0001'],
    [100000000, 2, '1000000.00'],
    [-150, 2, '-1.50'],
  ])('when %i minor units are formatted with exponent %i, then the text is "%s"', (minor, exponent, text) => {
    expect(formatAmount(m(minor), exponent)).toBe(text)
  })
})

describe('parse and format are inverse (properties)', () => {
  it('when any amount up to MAX_MINOR is formatted and parsed back, then it is unchanged, for every exponent 0..4', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MINOR }), exponentArb, (minor, exponent) => {
        const text = formatAmount(m(minor), exponent)
        expect(parseAmount(text, exponent)).toEqual({ ok: true, minor })
      }),
      RUNS,
    )
  })

  it('when a safe integer past MAX_MINOR is formatted, then parsing it back says too large', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_MINOR + 1, max: Number.MAX_SAFE_INTEGER }), exponentArb, (minor, exponent) => {
        expect(parseAmount(formatAmount(m(minor), exponent), exponent)).toEqual({ ok: false, reason: 'too_large' })
      }),
      RUNS,
    )
  })

  it('when any accepted decimal text is parsed and formatted, then the result is its canonical form', () => {
    const textArb = exponentArb.chain((exponent) =>
      fc.record({
        exponent: fc.constant(exponent),
        whole: fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 11 }),
        frac: fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 0, maxLength: exponent }),
      }),
    )
    fc.assert(
      fc.property(textArb, ({ exponent, whole, frac }) => {
        const text = frac === '' ? whole : `${whole}.${frac}`
        const canonicalWhole = whole.replace(/^0+(?=\d)/, '')
        const canonical = exponent === 0 ? canonicalWhole : `${canonicalWhole}.${frac.padEnd(exponent, '0')}`
        const once = formatAmount(m(parsed(text, exponent)), exponent)
        expect(once).toBe(canonical)
        // canonical text is a fixed point
        expect(formatAmount(m(parsed(once, exponent)), exponent)).toBe(once)
      }),
      RUNS,
    )
  })
})

describe('toMajorNumber and numberText: no floating-point drift', () => {
  it.each([
    [10050, 2, 100.5],
    [30, 2, 0.3],
    [5, 0, 5],
    [1005, 3, 1.005],
    [1, 4, 0.0001],
    [100000000, 2, 1000000],
  ])('when %i minor units at exponent %i are shown as a number, then it is %d', (minor, exponent, value) => {
    expect(toMajorNumber(m(minor), exponent)).toBe(value)
  })

  it('when any amount up to MAX_MINOR becomes a JSON number, then it equals the formatted text, the exact quotient, and parses back', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: MAX_MINOR - 1e12, max: MAX_MINOR })),
        exponentArb,
        (minor, exponent) => {
          const major = toMajorNumber(m(minor), exponent)
          expect(major).toBe(Number(formatAmount(m(minor), exponent)))
          // both operands are exact doubles, so IEEE division gives the double nearest the exact decimal
          expect(major).toBe(minor / 10 ** exponent)
          expect(parseAmount(String(major), exponent)).toEqual({ ok: true, minor })
          const text = numberText(major)
          expect(text).toBeDefined()
          expect(parseAmount(text ?? '', exponent)).toEqual({ ok: true, minor })
        },
      ),
      RUNS,
    )
  })

  it('when a JSON number is written with an exponent or is not finite, then numberText gives nothing', () => {
    expect(numberText(1e21)).toBeUndefined()
    expect(numberText(1e-7)).toBeUndefined()
    expect(numberText(Number.NaN)).toBeUndefined()
    expect(numberText(Number.POSITIVE_INFINITY)).toBeUndefined()
    expect(numberText(Number.NEGATIVE_INFINITY)).toBeUndefined()
  })

  it('when a JSON number is plain decimal, then numberText is its shortest text', () => {
    expect(numberText(100.5)).toBe('100.5')
    expect(numberText(100)).toBe('100')
    expect(numberText(0.1)).toBe('0.1')
    expect(numberText(-1)).toBe('-1')
    expect(numberText(0.1 + 0.2)).toBe('0.30000000000000004')
  })
})

describe('limitToMinor', () => {
  it.each([
    ['1.00', 2, 'ceil', 100],
    ['1.00', 2, 'floor', 100],
    ['1000000.00', 2, 'floor', 100000000],
    ['1.00', 0, 'ceil', 1],
    ['1.50', 0, 'ceil', 2],
    ['1.50', 0, 'floor', 1],
    ['1.005', 2, 'ceil', 101],
    ['1.005', 2, 'floor', 100],
    ['1.000', 2, 'ceil', 100],
    ['0.001', 2, 'ceil', 1],
    ['0.001', 2, 'floor', 0],
    ['10', 3, 'floor', 10000],
    ['600000', 4, 'floor', 6000000000],
  ] as const)(
    'when the limit "%s" is converted at exponent %i rounding %s, then it is %i',
    (text, exponent, round, minor) => {
      expect(limitToMinor(text, exponent, round)).toBe(minor)
    },
  )

  it('when the limit is not a plain decimal, then it throws', () => {
    expect(() => limitToMinor('abc', 2, 'ceil')).toThrow(RangeError)
    expect(() => limitToMinor('-1', 2, 'floor')).toThrow(RangeError)
    expect(() => limitToMinor('1e3', 2, 'floor')).toThrow(RangeError)
  })

  it('when a limit is exact at the exponent, then ceil and floor agree; otherwise ceil is floor + 1 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), exponentArb, fc.nat({ max: 999 }), (minor, exponent, extra) => {
        const exact = formatAmount(m(minor), exponent)
        expect(limitToMinor(exact, exponent, 'ceil')).toBe(minor)
        expect(limitToMinor(exact, exponent, 'floor')).toBe(minor)
        const withMore = `${exact}${exponent === 0 ? '.' : ''}${String(extra).padStart(3, '0')}`
        expect(limitToMinor(withMore, exponent, 'floor')).toBe(minor)
        expect(limitToMinor(withMore, exponent, 'ceil')).toBe(extra === 0 ? minor : minor + 1)
      }),
      RUNS,
    )
  })
})

describe('currencies', () => {
  it('when any ISO 4217 code of the table is looked up, then its exponent is 0, 2, 3 or 4', () => {
    expect(ALL_CURRENCY_CODES.length).toBeGreaterThan(150)
    for (const code of ALL_CURRENCY_CODES) {
      expect(code).toMatch(/^[A-Z]{3}$/)
      expect([0, 2, 3, 4]).toContain(currencyExponent(code))
    }
  })

  it('when the table is listed, then no code appears twice', () => {
    expect(new Set(ALL_CURRENCY_CODES).size).toBe(ALL_CURRENCY_CODES.length)
  })

  it.each([
    ['JPY', 0],
    ['KRW', 0],
    ['CLP', 0],
    ['RUB', 2],
    ['USD', 2],
    ['EUR', 2],
    ['GBP', 2],
    ['BHD', 3],
    ['KWD', 3],
    ['TND', 3],
    ['CLF', 4],
  ])('when %s is looked up, then its exponent is %i', (code, exponent) => {
    expect(currencyExponent(code)).toBe(exponent)
  })

  it('when the code is unknown or not upper-case, then there is no exponent', () => {
    expect(currencyExponent('XXX')).toBeUndefined()
    expect(currencyExponent('rub')).toBeUndefined()
    expect(currencyExponent('')).toBeUndefined()
  })
})

describe('computeFee', () => {
  const fee = (percent: string, fixed = '0'): Fee => ({ percent, fixed })

  it('when 2.5% of 100.10 RUB is 2.5025, then the fee rounds down to 2.50', () => {
    expect(computeFee(m(10010), 2, fee('2.5'))).toBe(250)
  })

  it('when 2.5% of 100.30 RUB is 2.5075, then the fee rounds up to 2.51', () => {
    expect(computeFee(m(10030), 2, fee('2.5'))).toBe(251)
  })

  it('when 2.5% of 100.20 RUB is exactly 2.505, then the half rounds up to 2.51', () => {
    expect(computeFee(m(10020), 2, fee('2.5'))).toBe(251)
  })

  it('when the currency has no minor unit (JPY), then the fee rounds half up to whole yen', () => {
    expect(computeFee(m(101), 0, fee('2.5'))).toBe(3) // 2.525
    expect(computeFee(m(100), 0, fee('2.5'))).toBe(3) // 2.5
    expect(computeFee(m(99), 0, fee('2.5'))).toBe(2) // 2.475
  })

  it('when the currency has three decimals (BHD), then the fee rounds to fils', () => {
    expect(computeFee(m(1000), 3, fee('2.5'))).toBe(25)
    expect(computeFee(m(1001), 3, fee('2.5'))).toBe(25) // 25.025
  })

  it('when the fee is a percent plus a fixed part, then both are added (0.4% + 1.00 of 100.00 = 1.40)', () => {
    expect(computeFee(m(10000), 2, fee('0.4', '1.00'))).toBe(140)
    expect(computeFee(m(12345), 2, fee('0.4', '1.00'))).toBe(149) // 0.4938 → 0.49, + 1.00
  })

  it('when the fee is fixed only, then it is that amount in minor units of the currency', () => {
    expect(computeFee(m(10000), 2, fee('0', '1.00'))).toBe(100)
    expect(computeFee(m(10000), 2, fee('0', '1'))).toBe(100)
    expect(computeFee(m(500), 0, fee('0', '1.00'))).toBe(1)
    expect(computeFee(m(5000), 3, fee('0', '0.25'))).toBe(250)
  })

  it('when the fixed fee has more decimals than the currency, then it rounds half up', () => {
    expect(computeFee(m(10000), 2, fee('0', '0.005'))).toBe(1)
    expect(computeFee(m(10000), 2, fee('0', '0.004'))).toBe(0)
    expect(computeFee(m(500), 0, fee('0', '1.5'))).toBe(2)
  })

  it('when the fee is 0% and 0 fixed, then it is 0', () => {
    expect(computeFee(m(10000), 2, fee('0', '0'))).toBe(0)
    expect(computeFee(m(1), 2, fee('0.0', '0.00'))).toBe(0)
  })

  it('when the fee is 100%, then it is the whole amount', () => {
    expect(computeFee(m(12345), 2, fee('100'))).toBe(12345)
  })

  it('when the fixed fee exceeds the amount, then the fee is capped at the amount', () => {
    expect(computeFee(m(100), 2, fee('0', '5.00'))).toBe(100)
    expect(computeFee(m(100), 2, fee('50', '1.00'))).toBe(100)
  })

  const percentArb = fc
    .tuple(fc.integer({ min: 0, max: 100 }), fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 3 }))
    .map(([whole, frac]) => (whole === 100 ? '100' : frac === '' ? String(whole) : `${whole}.${frac}`))
  const fixedArb = fc
    .tuple(fc.integer({ min: 0, max: 1000 }), fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 4 }))
    .map(([whole, frac]) => (frac === '' ? String(whole) : `${whole}.${frac}`))

  it('when any percent and fixed fee is applied to any amount, then the fee is between 0 and the amount (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e13 }),
        exponentArb,
        percentArb,
        fixedArb,
        (amount, exponent, percent, fixed) => {
          const f = computeFee(m(amount), exponent, { percent, fixed })
          expect(Number.isSafeInteger(f)).toBe(true)
          expect(f).toBeGreaterThanOrEqual(0)
          expect(f).toBeLessThanOrEqual(amount)
        },
      ),
      RUNS,
    )
  })

  it('when a percent-only fee is applied, then it is within half a minor unit of the exact value, halves rounding up (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), exponentArb, percentArb, (amount, exponent, percent) => {
        const f = BigInt(computeFee(m(amount), exponent, { percent, fixed: '0' }))
        const [pInt = '0', pFrac = ''] = percent.split('.')
        const scale = 100n * 10n ** BigInt(pFrac.length)
        const exact = BigInt(amount) * BigInt(pInt + pFrac) // the exact fee × scale
        const diff = f * scale - exact // rounding error × scale
        expect(2n * diff).toBeGreaterThan(-scale) // never more than half a unit below: -0.5 < error
        expect(2n * diff).toBeLessThanOrEqual(scale) // error <= +0.5, and exactly +0.5 only for halves rounded up
      }),
      RUNS,
    )
  })

  it('when the amount grows, then a percent-only fee never shrinks (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 0, max: 1e6 }),
        exponentArb,
        percentArb,
        (a, d, exponent, percent) => {
          const fee1 = computeFee(m(a), exponent, { percent, fixed: '0' })
          const fee2 = computeFee(m(a + d), exponent, { percent, fixed: '0' })
          expect(fee2).toBeGreaterThanOrEqual(fee1)
        },
      ),
      RUNS,
    )
  })
})
