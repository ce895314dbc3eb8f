import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totp, verifyTotp, type Hmac } from './totp.js'

const sha1: Hmac = (key, message) => createHmac('sha1', key).update(message).digest()
// RFC 6238 appendix B and RFC 4226 appendix D: the ASCII secret "12345678901234567890"
const KEY = new TextEncoder().encode('12345678901234567890')

describe('TOTP (RFC 6238) over HOTP (RFC 4226)', () => {
  it('when the RFC 4226 counters 0..9 are computed, then the appendix D values come out', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ]
    expect(expected.map((_, c) => hotp(sha1, KEY, c))).toEqual(expected)
  })

  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('when the time is %i s, then the RFC 6238 SHA-1 8-digit value is %s', (seconds, code) => {
    expect(totp(sha1, KEY, new Date(seconds * 1000), 8)).toBe(code)
  })

  it('when a code of the step before, now or after is given, then it verifies; two steps away or malformed, not', () => {
    const now = new Date(1111111111_000)
    const at = (s: number) => totp(sha1, KEY, new Date(now.getTime() + s * 1000))
    expect(verifyTotp(sha1, KEY, at(0), now)).toBe(true)
    expect(verifyTotp(sha1, KEY, at(-30), now)).toBe(true)
    expect(verifyTotp(sha1, KEY, at(30), now)).toBe(true)
    expect(verifyTotp(sha1, KEY, at(-90), now)).toBe(false)
    expect(verifyTotp(sha1, KEY, '12345', now)).toBe(false)
    expect(verifyTotp(sha1, KEY, 'abcdef', now)).toBe(false)
    expect(matchTotp(sha1, KEY, at(-30), now)).toBe(Math.floor(1111111111 / 30) - 1)
    expect(matchTotp(sha1, KEY, at(0), now)).toBe(Math.floor(1111111111 / 30))
  })

  it('when bytes go through base32, then they come back; the RFC 4648 vector holds', () => {
    expect(base32Encode(new TextEncoder().encode('foobar'))).toBe('MZXW6YTBOI')
    const bytes = Uint8Array.from({ length: 20 }, (_, i) => (i * 37) % 256)
    expect(base32Decode(base32Encode(bytes))).toEqual(bytes)
    expect(base32Decode('mzxw 6ytb oi==')).toEqual(new TextEncoder().encode('foobar'))
    expect(base32Decode('not base32!')).toBeUndefined()
  })

  it('when the otpauth URI is built, then the label and issuer are encoded', () => {
    expect(otpauthUri('Invoice Service', 'a@b.example', 'MZXW6YTBOI')).toBe(
      'otpauth://totp/Invoice%20Service%3Aa%40b.example?secret=MZXW6YTBOI&issuer=Invoice%20Service&algorithm=SHA1&digits=6&period=30',
    )
  })
})
