import { describe, expect, it } from 'vitest'
import { isInAnyIpRange, isInIpRange, parseIpRange, type IpRange } from './ip-range.js'

const range = (text: string): IpRange => {
  const parsed = parseIpRange(text)
  if (parsed === undefined) throw new Error(`not a range: ${text}`)
  return parsed
}

describe('parseIpRange', () => {
  it('when given IPv4 and IPv6 ranges or single addresses, then it reads their base and prefix', () => {
    expect(parseIpRange('185.71.76.0/27')).toEqual({ family: 4, base: 0xb9474c00, prefix: 27 })
    expect(parseIpRange('77.75.156.11')).toEqual({ family: 4, base: 0x4d4b9c0b, prefix: 32 })
    expect(parseIpRange('2a02:5180::/32')).toEqual({ family: 6, base: [0x2a02, 0x5180, 0, 0, 0, 0, 0, 0], prefix: 32 })
    expect(parseIpRange('::1')).toEqual({ family: 6, base: [0, 0, 0, 0, 0, 0, 0, 1], prefix: 128 })
    expect(parseIpRange('0.0.0.0/0')).toEqual({ family: 4, base: 0, prefix: 0 })
  })

  it('when an IPv4-mapped IPv6 range is given, then it is read as the IPv4 range of its last 32 bits', () => {
    expect(parseIpRange('::ffff:185.71.76.0/123')).toEqual({ family: 4, base: 0xb9474c00, prefix: 27 })
    expect(parseIpRange('::ffff:10.0.0.1')).toEqual({ family: 4, base: 0x0a000001, prefix: 32 })
    expect(parseIpRange('::ffff:10.0.0.0/64')).toBeUndefined()
  })

  it('when the text is not a range, then it is undefined', () => {
    for (const bad of [
      '',
      '/',
      '185.71.76.0/',
      '185.71.76.0/33',
      '185.71.76.0/027',
      '185.71.76.0/-1',
      '185.71.76.0/2 7',
      '2a02:5180::/129',
      '185.71.76',
      '127.1',
      '0x7f000001',
      '0177.0.0.1',
      '256.0.0.1',
      ' 185.71.76.0/27',
      '[2a02:5180::]/32',
      'fe80::1%eth0',
      'example.com',
      '1.2.3.4/8/8',
      '2a02:5180::/3a',
    ])
      expect(parseIpRange(bad), bad).toBeUndefined()
  })
})

describe('isInIpRange', () => {
  it('when an IPv4 address is checked, then the prefix bits decide', () => {
    const r = range('185.71.76.0/27')
    expect(isInIpRange('185.71.76.0', r)).toBe(true)
    expect(isInIpRange('185.71.76.31', r)).toBe(true)
    expect(isInIpRange('185.71.76.32', r)).toBe(false)
    expect(isInIpRange('185.71.75.255', r)).toBe(false)
    expect(isInIpRange('77.75.156.11', range('77.75.156.11'))).toBe(true)
    expect(isInIpRange('77.75.156.12', range('77.75.156.11'))).toBe(false)
    expect(isInIpRange('203.0.113.9', range('0.0.0.0/0'))).toBe(true)
    expect(isInIpRange('185.71.76.9', range('185.71.76.5/27'))).toBe(true) // host bits past the prefix ignored
  })

  it('when an IPv6 address is checked, then prefixes inside a group count bit by bit', () => {
    const r = range('2a02:5180::/32')
    expect(isInIpRange('2a02:5180::1', r)).toBe(true)
    expect(isInIpRange('2a02:5180:ffff:ffff:ffff:ffff:ffff:ffff', r)).toBe(true)
    expect(isInIpRange('2A02:5180:0:0:0:0:0:7', r)).toBe(true)
    expect(isInIpRange('2a02:5181::1', r)).toBe(false)
    const odd = range('2001:db8:8000::/33')
    expect(isInIpRange('2001:db8:8000::1', odd)).toBe(true)
    expect(isInIpRange('2001:db8:7fff::1', odd)).toBe(false)
    expect(isInIpRange('::1', range('::1'))).toBe(true)
    expect(isInIpRange('::2', range('::1'))).toBe(false)
  })

  it('when an IPv4-mapped IPv6 address is checked, then its IPv4 address decides, against either spelling', () => {
    expect(isInIpRange('::ffff:185.71.76.1', range('185.71.76.0/27'))).toBe(true)
    expect(isInIpRange('::ffff:b947:4c01', range('185.71.76.0/27'))).toBe(true)
    expect(isInIpRange('::ffff:185.71.77.1', range('185.71.76.0/27'))).toBe(false)
    expect(isInIpRange('185.71.76.1', range('::ffff:185.71.76.0/123'))).toBe(true)
    expect(isInIpRange('::ffff:127.0.0.1', range('127.0.0.1/32'))).toBe(true)
  })

  it('when the families differ, then nothing matches', () => {
    expect(isInIpRange('185.71.76.1', range('::/0'))).toBe(false)
    expect(isInIpRange('2a02:5180::1', range('0.0.0.0/0'))).toBe(false)
    expect(isInIpRange('::1', range('127.0.0.1'))).toBe(false) // IPv6 loopback is not 127.0.0.1
  })

  it('when the address is not a canonical address, then it is in no range (never a throw)', () => {
    const all4 = range('0.0.0.0/0')
    const all6 = range('::/0')
    for (const bad of ['', 'unknown', '127.1', '2130706433', '0x7f.0.0.1', '1.2.3.4/32', '[::1]', 'fe80::1%lo', ':::'])
      expect(isInIpRange(bad, all4) || isInIpRange(bad, all6), bad).toBe(false)
  })
})

describe('isInAnyIpRange', () => {
  it('when any of the ranges holds the address, then it is in; with none, never', () => {
    const ranges = ['185.71.76.0/27', '77.75.156.11', '2a02:5180::/32'].map(range)
    expect(isInAnyIpRange('77.75.156.11', ranges)).toBe(true)
    expect(isInAnyIpRange('2a02:5180::5', ranges)).toBe(true)
    expect(isInAnyIpRange('::ffff:185.71.76.30', ranges)).toBe(true)
    expect(isInAnyIpRange('8.8.8.8', ranges)).toBe(false)
    expect(isInAnyIpRange('185.71.76.1', [])).toBe(false)
  })
})
