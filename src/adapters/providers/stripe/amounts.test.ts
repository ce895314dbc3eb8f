import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { AppError } from '../../../domain/errors.js'
import { ALL_CURRENCY_CODES, currencyExponent } from '../../../domain/currencies.js'
import { asMinor } from '../../../domain/money.js'
import { fromStripeAmount, stripeCanCharge, stripeUnit, toStripeAmount } from './amounts.js'

const exponentOf = (code: string): number => {
  const e = currencyExponent(code)
  if (e === undefined) throw new Error(`not a currency: ${code}`)
  return e
}

describe("Stripe's amounts (https://docs.stripe.com/currencies)", () => {
  // [currency, our minor units (ISO exponent), Stripe's amount]
  it.each([
    ['USD', 1050, 1050], // 10.50 USD: two decimals both sides
    ['EUR', 1, 1],
    ['RUB', 10000, 10000],
    ['JPY', 500, 500], // ¥500: zero-decimal both sides
    ['KRW', 15000, 15000],
    ['CLP', 990, 990],
    ['UGX', 5000, 5000], // zero-decimal at Stripe and in ISO 4217
    ['VND', 250000, 250000],
    ['MGA', 1500, 15], // 15.00 MGA: ISO has 2 decimals, Stripe none
    ['ISK', 5, 500], // 5 ISK: ISO has 0 decimals, Stripe still takes 2 (a multiple of 100)
    ['HUF', 12345, 12345], // 123.45 HUF: charges keep two decimals (the whole-unit rule is for payouts)
    ['TWD', 9999, 9999],
    ['KWD', 5120, 5120], // 5.120 KWD: three decimals, last digit 0
    ['BHD', 10, 10],
    ['JOD', 1000, 1000],
    ['OMR', 990, 990],
    ['TND', 123450, 123450],
  ] as const)('%s %d (ours) is %d at Stripe', (currency, ours, theirs) => {
    const exponent = exponentOf(currency)
    expect(toStripeAmount(asMinor(ours), currency, exponent)).toBe(theirs)
    expect(fromStripeAmount(theirs, currency, exponent)).toBe(ours)
  })

  it('takes the currency in either case', () => {
    expect(toStripeAmount(asMinor(500), 'jpy', 0)).toBe(500)
    expect(stripeUnit('isk')).toEqual({ decimals: 2, step: 100 })
  })

  it.each([
    ['KWD', 5124, /multiple of 0\.010 KWD/], // 5.124 KWD: Stripe's partners need a last digit of 0
    ['TND', 1, /multiple of 0\.010 TND/],
    ['MGA', 1050, /multiple of 1\.00 MGA/], // 10.50 MGA: Stripe has no fraction of an ariary
    ['OMR', 995, /multiple of 0\.010 OMR/],
  ] as const)('refuses %s %d (ours): Stripe cannot charge it', (currency, ours, message) => {
    const run = () => toStripeAmount(asMinor(ours), currency, exponentOf(currency))
    expect(run).toThrow(AppError)
    expect(run).toThrow(message)
    try {
      run()
    } catch (error) {
      expect(error).toMatchObject({ code: 'validation_failed', errors: [{ field: 'amount' }] })
    }
  })

  it('refuses an amount back from Stripe that our units cannot hold', () => {
    expect(() => fromStripeAmount(550, 'ISK', 0)).toThrow(/finer than its currency allows/)
    expect(() => fromStripeAmount(550, 'ISK', 0)).toThrow(AppError)
  })

  it('round-trips every amount Stripe can charge, in every ISO currency', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_CURRENCY_CODES), fc.integer({ min: 1, max: 99_999_999 }), (code, n) => {
        const exponent = exponentOf(code)
        const minor = asMinor(n)
        if (!stripeCanCharge(minor, code, exponent)) return
        const theirs = toStripeAmount(minor, code, exponent)
        expect(fromStripeAmount(theirs, code, exponent)).toBe(minor)
        expect(theirs % stripeUnit(code).step).toBe(0)
      }),
      { numRuns: 2000 },
    )
  })
})
