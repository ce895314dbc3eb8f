import { describe, expect, it } from 'vitest'
import type { InvoiceId } from '../../../domain/ids.js'
import type { Minor } from '../../../domain/money.js'
import { fromYooKassaAmount, readPayment, readReference, toUpdate, toYooKassaAmount } from './yookassa-payment.js'

const payment = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: '2419a771-000f-5000-9000-1edaf29243f2',
  status: 'pending',
  amount: { value: '10.50', currency: 'RUB' },
  metadata: { invoice_id: 'inv-1', attempt: '2' },
  confirmation: { type: 'redirect', confirmation_url: 'https://yoomoney.ru/checkout/x' },
  ...over,
})

describe('YooKassa amounts', () => {
  it('when our minor units go to YooKassa, then they become its major-unit decimal string exactly', () => {
    expect(toYooKassaAmount(1050 as Minor, 'RUB', 2)).toEqual({ value: '10.50', currency: 'RUB' })
    expect(toYooKassaAmount(1 as Minor, 'RUB', 2)).toEqual({ value: '0.01', currency: 'RUB' })
    expect(toYooKassaAmount(999_999_999_999_999 as Minor, 'RUB', 2).value).toBe('9999999999999.99')
    expect(toYooKassaAmount(500 as Minor, 'JPY', 0).value).toBe('500')
  })

  it("when YooKassa's decimal string comes back, then it is our minor units exactly, zeros past the exponent dropped", () => {
    expect(fromYooKassaAmount({ value: '10.50', currency: 'RUB' })).toBe(1050)
    expect(fromYooKassaAmount({ value: '0.29', currency: 'RUB' })).toBe(29) // 0.29 × 100 is 28.999… in floats
    expect(fromYooKassaAmount({ value: '100', currency: 'RUB' })).toBe(10000)
    expect(fromYooKassaAmount({ value: '100.00', currency: 'JPY' })).toBe(100)
    expect(fromYooKassaAmount({ value: '9999999999999.99', currency: 'RUB' })).toBe(999_999_999_999_999)
  })

  it('when the amount cannot be read exactly, then it is a provider_error, never a rounded number', () => {
    for (const bad of [
      { value: '10.505', currency: 'RUB' },
      { value: '1e3', currency: 'RUB' },
      { value: '-1.00', currency: 'RUB' },
      { value: '10.50', currency: 'XXZ' },
    ])
      expect(() => fromYooKassaAmount(bad), bad.value).toThrow(expect.objectContaining({ code: 'provider_error' }))
  })
})

describe('YooKassa payment objects', () => {
  it('when each status is read, then it maps to the port state', () => {
    const states = ['pending', 'waiting_for_capture', 'succeeded', 'canceled'].map(
      (status) => toUpdate(readPayment(payment({ status }))).state,
    )
    expect(states).toEqual(['open', 'held', 'succeeded', 'canceled'])
  })

  it('when the payment carries our metadata, then the update names the attempt; without it, the fallback or none', () => {
    const update = toUpdate(readPayment(payment()))
    expect(update).toEqual({
      reference: { invoiceId: 'inv-1', attempt: 2 },
      checkoutId: '2419a771-000f-5000-9000-1edaf29243f2',
      paymentId: '2419a771-000f-5000-9000-1edaf29243f2',
      state: 'open',
      amount: 1050,
      currency: 'RUB',
    })
    const fallback = { invoiceId: 'inv-9' as InvoiceId, attempt: 1 }
    expect(toUpdate(readPayment(payment({ metadata: {} })), fallback).reference).toBe(fallback)
    expect(toUpdate(readPayment(payment({ metadata: undefined }))).reference).toBeUndefined()
    expect(readReference({ invoice_id: 'inv-1', attempt: '0' })).toBeUndefined()
    expect(readReference({ invoice_id: 'inv-1', attempt: '1.5' })).toBeUndefined()
    expect(readReference({ invoice_id: '', attempt: '1' })).toBeUndefined()
    expect(readReference({ invoice_id: 'inv-1', attempt: 1 })).toBeUndefined()
  })

  it('when the answer is not a payment, then it is a provider_error', () => {
    for (const bad of [
      null,
      [],
      'x',
      payment({ status: 'refunded' }),
      payment({ id: 5 }),
      payment({ amount: '10.50' }),
    ])
      expect(() => readPayment(bad)).toThrow(expect.objectContaining({ code: 'provider_error' }))
  })
})
