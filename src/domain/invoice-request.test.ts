import { describe, expect, it } from 'vitest'
import type { Catalog } from './catalog.js'
import { withArticle, type FieldError } from './errors.js'
import {
  validateCreateRequest,
  type CreateInvoiceInput,
  type RequestRules,
  type ValidCreateRequest,
} from './invoice-request.js'

const CATALOG: Catalog = {
  currencies: ['RUB', 'USD', 'EUR', 'JPY', 'BHD'],
  services: [
    { name: 'card', currencies: undefined, min: '1.00', max: '1000000.00', fee: undefined },
    { name: 'sbp', currencies: ['RUB'], min: '10', max: '600000', fee: undefined },
  ],
}

const RULES: RequestRules = {
  catalog: CATALOG,
  defaultService: 'card',
  callbackAllowHttp: false,
  webhookAllowPrivate: false,
  lifetime: { default: 3600, min: 300, max: 2_592_000 },
}

const BASE: CreateInvoiceInput = { orderId: 'order-1', amount: '100.50', currency: 'RUB' }

function validate(over: Partial<CreateInvoiceInput> = {}, rules: Partial<RequestRules> = {}) {
  return validateCreateRequest({ ...BASE, ...over }, { ...RULES, ...rules })
}

function accepted(over: Partial<CreateInvoiceInput> = {}, rules: Partial<RequestRules> = {}): ValidCreateRequest {
  const r = validate(over, rules)
  if (!r.ok) throw new Error(`expected acceptance, got ${JSON.stringify(r.errors)}`)
  return r.value
}

function refused(over: Partial<CreateInvoiceInput> = {}, rules: Partial<RequestRules> = {}): FieldError[] {
  const r = validate(over, rules)
  if (r.ok) throw new Error(`expected refusal, got ${JSON.stringify(r.value)}`)
  return r.errors
}

/** The request is refused with exactly one error, on `field`. */
function refusedOn(field: string, over: Partial<CreateInvoiceInput>, rules: Partial<RequestRules> = {}): string {
  const errors = refused(over, rules)
  expect(errors.map((e) => e.field)).toEqual([field])
  return errors[0]?.message ?? ''
}

describe('validateCreateRequest — a valid request', () => {
  it('when only the required fields are sent, then defaults fill the rest', () => {
    expect(accepted()).toEqual({
      orderId: 'order-1',
      amount: 10050,
      currency: 'RUB',
      exponent: 2,
      comment: null,
      service: 'card',
      callbackUrl: null,
      successUrl: null,
      failUrl: null,
      lifetimeSeconds: 3600,
    })
  })

  it('when every optional field is sent, then each is kept', () => {
    expect(
      accepted({
        comment: 'Blue mug',
        service: 'sbp',
        callbackUrl: 'https://shop.example/hooks',
        successUrl: 'https://shop.example/ok',
        failUrl: 'http://shop.example/fail',
        lifetime: 600,
      }),
    ).toMatchObject({
      comment: 'Blue mug',
      service: 'sbp',
      callbackUrl: 'https://shop.example/hooks',
      successUrl: 'https://shop.example/ok',
      failUrl: 'http://shop.example/fail',
      lifetimeSeconds: 600,
    })
  })
})

describe('validateCreateRequest — order_id', () => {
  it('when order_id is empty, then it is refused', () => {
    expect(refusedOn('order_id', { orderId: '' })).toMatch(/1 to 128/)
  })

  it('when order_id is 128 characters, then it is accepted; at 129 it is refused', () => {
    expect(accepted({ orderId: 'x'.repeat(128) }).orderId).toHaveLength(128)
    refusedOn('order_id', { orderId: 'x'.repeat(129) })
  })

  it.each([
    ['NUL', '\u0000'],
    ['newline', '\n'],
    ['tab', '\t'],
    ['escape', '\u001b'],
    ['DEL', '\u007f'],
    ['C1 NEL', '\u0085'],
  ])('when order_id contains a control character (%s), then it is refused', (_name, ch) => {
    expect(refusedOn('order_id', { orderId: `order${ch}1` })).toMatch(/control characters/)
  })

  it('when order_id has spaces, punctuation and non-ASCII letters, then it is accepted as is', () => {
    expect(accepted({ orderId: 'Заказ №42 / a-b_c.d' }).orderId).toBe('Заказ №42 / a-b_c.d')
  })
})

describe('validateCreateRequest — amount', () => {
  it.each([
    [100.5, 'RUB', 10050],
    [100, 'RUB', 10000],
    ['100.50', 'RUB', 10050],
    ['100.5', 'RUB', 10050],
    ['100', 'RUB', 10000],
    [5, 'JPY', 5],
    ['5', 'JPY', 5],
    ['1.005', 'BHD', 1005],
    [1.005, 'BHD', 1005],
  ] as const)('when amount %j is sent in %s, then it is %i minor units', (amount, currency, minor) => {
    expect(accepted({ amount, currency })).toMatchObject({ amount: minor, currency })
  })

  it('when "100.500" is sent for RUB, then it is refused naming the 2 decimal places (docs/api.md#create-an-invoice, docs/api.md#errors)', () => {
    expect(refusedOn('amount', { amount: '100.500' })).toBe('must have at most 2 decimal places for RUB')
  })

  it('when a JPY amount has any decimals, then it is refused', () => {
    expect(refusedOn('amount', { amount: '5.0', currency: 'JPY' })).toBe('must have at most 0 decimal places for JPY')
    expect(refusedOn('amount', { amount: 5.5, currency: 'JPY' })).toBe('must have at most 0 decimal places for JPY')
  })

  it('when a JSON number carries more decimals than the currency allows, then it is refused, not rounded', () => {
    refusedOn('amount', { amount: 100.123 })
    refusedOn('amount', { amount: 0.1 + 0.2 }) // 0.30000000000000004
  })

  it.each([' 1', '1 ', '+1', '-1', '1e3', '1,00', '', '0x10', '1.', '.5', 'abc', '١'])(
    'when the amount string is %j, then it is refused as malformed',
    (amount) => {
      expect(refusedOn('amount', { amount })).toMatch(/no sign, spaces or exponent/)
    },
  )

  it.each([-1, -0.01, 1e21, 1e-7])('when the amount number is %d, then it is refused', (amount) => {
    expect(refusedOn('amount', { amount })).toMatch(/positive decimal number/)
  })

  it.each([0, -0, '0', '0.00'])('when the amount is %j, then it is refused as not greater than 0', (amount) => {
    expect(refusedOn('amount', { amount })).toBe('must be greater than 0')
  })

  it('when the amount does not fit in a safe integer of minor units, then it is refused as too large', () => {
    expect(refusedOn('amount', { amount: '99999999999999999999' })).toBe('is too large')
  })
})

describe('validateCreateRequest — amount bounds per service (docs/api.md#limits)', () => {
  it('when card gets exactly its min 1.00 and max 1,000,000.00, then both are accepted', () => {
    expect(accepted({ amount: '1.00' }).amount).toBe(100)
    expect(accepted({ amount: '1000000.00' }).amount).toBe(100_000_000)
  })

  it('when card gets 0.99 or 1,000,000.01, then it is refused naming the bounds', () => {
    expect(refusedOn('amount', { amount: '0.99' })).toBe('must be between 1.00 and 1000000.00 RUB for service card')
    refusedOn('amount', { amount: '1000000.01' })
  })

  it('when sbp has bounds 10..600000, then 9.99 and 600000.01 are refused and the bounds themselves accepted', () => {
    expect(refusedOn('amount', { amount: '9.99', service: 'sbp' })).toBe(
      'must be between 10.00 and 600000.00 RUB for service sbp',
    )
    refusedOn('amount', { amount: '600000.01', service: 'sbp' })
    expect(accepted({ amount: '10', service: 'sbp' }).amount).toBe(1000)
    expect(accepted({ amount: 600000, service: 'sbp' }).amount).toBe(60_000_000)
  })

  it('when the bounds are applied to a currency without decimals, then they are in whole units of it', () => {
    expect(accepted({ amount: 1, currency: 'JPY' }).amount).toBe(1)
    expect(accepted({ amount: 1_000_000, currency: 'JPY' }).amount).toBe(1_000_000)
    expect(refusedOn('amount', { amount: 1_000_001, currency: 'JPY' })).toBe(
      'must be between 1 and 1000000 JPY for service card',
    )
  })
})

describe('validateCreateRequest — currency', () => {
  it.each(['rub', 'Rub', 'rUB'])('when the currency is sent as %s, then it is stored upper-case', (currency) => {
    expect(accepted({ currency })).toMatchObject({ currency: 'RUB', exponent: 2 })
  })

  it('when the currency is not an ISO 4217 code, then it is refused listing the enabled ones', () => {
    expect(refusedOn('currency', { currency: 'XYZ' })).toBe(
      'must be one of the enabled currencies: RUB, USD, EUR, JPY, BHD',
    )
  })

  it('when the currency is a real code not enabled on this instance, then it is refused', () => {
    refusedOn('currency', { currency: 'GBP' })
  })

  it('when the service does not accept the currency, then it is refused on currency', () => {
    expect(refusedOn('currency', { currency: 'USD', service: 'sbp' })).toBe('USD is not supported by service sbp')
  })

  it('when the service accepts the currency, then it is accepted', () => {
    expect(accepted({ currency: 'usd', service: 'card' })).toMatchObject({ currency: 'USD', service: 'card' })
  })
})

describe('validateCreateRequest — service', () => {
  it('when service is omitted, then the merchant default is used', () => {
    expect(accepted({}, { defaultService: 'sbp' }).service).toBe('sbp')
  })

  it('when service is unknown, then it is refused listing the configured ones', () => {
    expect(refusedOn('service', { service: 'crypto' })).toBe('must be one of: card, sbp')
  })

  it('when service differs only in case, then it is refused (names are exact)', () => {
    refusedOn('service', { service: 'CARD' })
  })

  it("when service is omitted and the merchant's default is no longer configured, then the message says so", () => {
    expect(refusedOn('service', {}, { defaultService: 'gone' })).toMatch(/default service "gone" is not available/)
  })
})

describe('validateCreateRequest — comment', () => {
  it('when the comment is 1024 characters, then it is accepted; at 1025 it is refused', () => {
    expect(accepted({ comment: 'c'.repeat(1024) }).comment).toHaveLength(1024)
    expect(refusedOn('comment', { comment: 'c'.repeat(1025) })).toBe('must be at most 1024 characters')
  })

  it('when the comment holds markup, then it is kept verbatim (escaping happens on the page)', () => {
    expect(accepted({ comment: '<b>mug</b> & "cup"' }).comment).toBe('<b>mug</b> & "cup"')
  })
})

describe('validateCreateRequest — callback_url', () => {
  it('when callback_url is https, then it is accepted', () => {
    expect(accepted({ callbackUrl: 'https://shop.example/hooks?x=1' }).callbackUrl).toBe(
      'https://shop.example/hooks?x=1',
    )
  })

  it('when callback_url is http and the operator has not allowed it, then it is refused', () => {
    expect(refusedOn('callback_url', { callbackUrl: 'http://shop.example/hooks' })).toBe(
      'must be an absolute https URL',
    )
  })

  it('when callback_url is http and callbackAllowHttp is on, then it is accepted', () => {
    expect(accepted({ callbackUrl: 'http://shop.example:3000/hooks' }, { callbackAllowHttp: true }).callbackUrl).toBe(
      'http://shop.example:3000/hooks',
    )
  })

  it.each(['ftp://shop.example/h', 'javascript:alert(1)', 'file:///etc/passwd', 'mailto:a@shop.example'])(
    'when callback_url is %s, then it is refused even with callbackAllowHttp',
    (callbackUrl) => {
      refusedOn('callback_url', { callbackUrl }, { callbackAllowHttp: true })
    },
  )

  it.each(['/hooks', 'shop.example/hooks', 'not a url', '', 'https://'])(
    'when callback_url is not absolute (%j), then it is refused',
    (callbackUrl) => {
      refusedOn('callback_url', { callbackUrl })
    },
  )

  it.each([
    ['https://127.0.0.1/h', 'loopback'],
    ['https://2130706433/h', 'loopback'],
    ['https://0x7f000001/h', 'loopback'],
    ['https://127.1/h', 'loopback'],
    ['https://localhost:8443/h', 'loopback'],
    ['https://[::1]/h', 'loopback'],
    ['https://[::ffff:127.0.0.1]/h', 'loopback'],
    ['https://10.0.0.1/h', 'private'],
    ['https://192.168.1.1/h', 'private'],
    ['https://169.254.169.254/h', 'link-local'],
    ['https://100.64.1.1/h', 'cgnat'],
    ['https://[fd00::1]/h', 'unique-local'],
    ['https://0.0.0.0/h', 'unspecified'],
  ])('when callback_url is %s, then it is refused as a %s address unless WEBHOOK_ALLOW_PRIVATE', (callbackUrl, cls) => {
    expect(refusedOn('callback_url', { callbackUrl })).toMatch(
      new RegExp(`^must not point to ${withArticle(cls)} address`),
    )
    expect(accepted({ callbackUrl }, { webhookAllowPrivate: true }).callbackUrl).toBe(callbackUrl)
  })

  it('when callback_url names a host or a public address, then it is accepted (the name is checked again when connecting)', () => {
    expect(accepted({ callbackUrl: 'https://93.184.216.34/h' }).callbackUrl).toBe('https://93.184.216.34/h')
    expect(accepted({ callbackUrl: 'https://hooks.shop.example/h' }).callbackUrl).toBe('https://hooks.shop.example/h')
  })

  it('when success_url or fail_url is a loopback address, then it is accepted: the buyer is sent there, not our webhooks', () => {
    expect(accepted({ successUrl: 'http://localhost:3000/ok' }).successUrl).toBe('http://localhost:3000/ok')
  })

  it('when callback_url is 2048 characters, then it is accepted; at 2049 it is refused', () => {
    const prefix = 'https://shop.example/'
    expect(accepted({ callbackUrl: prefix + 'a'.repeat(2048 - prefix.length) }).callbackUrl).toHaveLength(2048)
    expect(refusedOn('callback_url', { callbackUrl: prefix + 'a'.repeat(2049 - prefix.length) })).toBe(
      'must be at most 2048 characters',
    )
  })
})

describe('validateCreateRequest — success_url and fail_url', () => {
  it.each(['successUrl', 'failUrl'] as const)(
    'when %s is http or https, then it is accepted without any operator switch',
    (key) => {
      expect(accepted({ [key]: 'http://shop.example/back' })[key]).toBe('http://shop.example/back')
      expect(accepted({ [key]: 'https://shop.example/back' })[key]).toBe('https://shop.example/back')
    },
  )

  it.each([
    ['successUrl', 'success_url'],
    ['failUrl', 'fail_url'],
  ] as const)('when %s is not an absolute http(s) URL, then it is refused on %s', (key, field) => {
    for (const bad of ['javascript:alert(1)', 'ftp://shop.example/x', '/back', 'data:text/html,hi']) {
      expect(refusedOn(field, { [key]: bad })).toBe('must be an absolute https or http URL')
    }
  })

  it.each([
    ['successUrl', 'success_url'],
    ['failUrl', 'fail_url'],
  ] as const)('when %s is longer than 2048 characters, then it is refused on %s', (key, field) => {
    const prefix = 'https://shop.example/'
    accepted({ [key]: prefix + 'a'.repeat(2048 - prefix.length) })
    expect(refusedOn(field, { [key]: prefix + 'a'.repeat(2049 - prefix.length) })).toBe(
      'must be at most 2048 characters',
    )
  })
})

describe('validateCreateRequest — lifetime', () => {
  it('when lifetime is at either bound, then it is accepted', () => {
    expect(accepted({ lifetime: 300 }).lifetimeSeconds).toBe(300)
    expect(accepted({ lifetime: 2_592_000 }).lifetimeSeconds).toBe(2_592_000)
  })

  it.each([299, 2_592_001, 0, -1, 300.5])('when lifetime is %d, then it is refused naming the bounds', (lifetime) => {
    expect(refusedOn('lifetime', { lifetime })).toBe('must be a whole number of seconds from 300 to 2592000')
  })

  it('when the configured bounds are different, then they apply', () => {
    const lifetime = { default: 60, min: 30, max: 120 }
    expect(accepted({}, { lifetime }).lifetimeSeconds).toBe(60)
    expect(accepted({ lifetime: 30 }, { lifetime }).lifetimeSeconds).toBe(30)
    refusedOn('lifetime', { lifetime: 121 }, { lifetime })
  })
})

describe('validateCreateRequest — several bad fields', () => {
  it('when many fields are bad at once, then every one is reported in one answer', () => {
    const errors = refused({
      orderId: '',
      amount: '1.234',
      currency: 'rub',
      comment: 'c'.repeat(1025),
      service: 'card',
      callbackUrl: 'http://shop.example/h',
      successUrl: 'ftp://x.example',
      failUrl: 'nope',
      lifetime: 1,
    })
    expect(errors.map((e) => e.field).sort()).toEqual(
      ['amount', 'callback_url', 'comment', 'fail_url', 'lifetime', 'order_id', 'success_url'].sort(),
    )
    for (const e of errors) expect(e.message).not.toBe('')
  })

  it('when the currency and the service are both unknown, then both are reported', () => {
    const errors = refused({ currency: 'XYZ', service: 'crypto' })
    expect(errors.map((e) => e.field).sort()).toEqual(['currency', 'service'])
  })

  it('when the amount is out of bounds and the callback is bad, then both are reported', () => {
    const errors = refused({ amount: '0.50', callbackUrl: 'http://x.example' })
    expect(errors.map((e) => e.field).sort()).toEqual(['amount', 'callback_url'])
  })
})
