import { describe, expect, it } from 'vitest'
import { classifyHost, classifyIp, isDottedQuad, parseIpv4, parseIpv6 } from './network-address.js'

describe('parseIpv4: every spelling inet_aton and the WHATWG URL parser accept', () => {
  it.each([
    ['127.0.0.1', 0x7f000001],
    ['2130706433', 0x7f000001], // one decimal number
    ['0x7f000001', 0x7f000001], // one hexadecimal number
    ['0x7F.1', 0x7f000001],
    ['127.1', 0x7f000001], // a.b: b fills the last three bytes
    ['127.0.1', 0x7f000001], // a.b.c: c fills the last two bytes
    ['0177.0.0.1', 0x7f000001], // octal
    ['017700000001', 0x7f000001],
    ['10.0.0.1.', 0x0a000001], // a trailing dot
    ['0', 0],
    ['0x', 0],
    ['255.255.255.255', 0xffffffff],
  ])('when the text is %s, then the address is %i', (text, value) => {
    expect(parseIpv4(text)).toBe(value)
  })

  it.each([
    '256.0.0.1',
    '1.2.3.4.5',
    '4294967296',
    '1.16777216',
    'shop.example',
    '1.2.3.x',
    '08.0.0.1',
    '',
    '1..2',
    '-1.0.0.0',
    ' 1.2.3.4',
  ])('when the text is %j, then it is not an IPv4 address', (text) => {
    expect(parseIpv4(text)).toBeUndefined()
  })
})

describe('isDottedQuad', () => {
  it.each(['0.0.0.0', '10.0.0.1', '255.255.255.255', '192.168.1.10'])(
    'when the text is %j, then it is an address in dotted decimal',
    (text) => {
      expect(isDottedQuad(text)).toBe(true)
    },
  )

  it.each(['010.0.0.1', '256.0.0.1', '127.1', '0x7f.0.0.1', '2130706433', '1.2.3.4.', '1.2.3', ' 1.2.3.4'])(
    'when the text is %j, then it is not (another spelling, or not an address)',
    (text) => {
      expect(isDottedQuad(text)).toBe(false)
    },
  )
})

describe('parseIpv6', () => {
  it.each([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['[::1]', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['fe80::1%eth0', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['2001:db8:0:0:0:0:0:1', [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]],
    ['2001:DB8::', [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]],
  ])('when the text is %s, then the groups are %j', (text, groups) => {
    expect(parseIpv6(text)).toEqual(groups)
  })

  it.each([
    '1:2:3:4:5:6:7',
    '1::2::3',
    '12345::',
    '1:2:3:4:5:6:7:8:9',
    '::ffff:256.0.0.1',
    '::1.2.3',
    '127.0.0.1',
    'g::1',
    '1:2:3:4:5:6:7::8',
    '1.2.3.4::',
    '1.2.3.4::1',
    '::ffff:1.2.3.4:1',
    '::ffff:01.2.3.4',
    '::ffff:1.2.3.004',
  ])('when the text is %j, then it is not an IPv6 address', (text) => {
    expect(parseIpv6(text)).toBeUndefined()
  })
})

describe('classifyIp (docs/webhooks.md#addresses: only public addresses receive webhooks)', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this-network'],
    ['10.20.30.40', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'], // cloud metadata
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['192.168.0.1', 'private'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['127.1', 'loopback'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::127.0.0.1', 'loopback'], // deprecated IPv4-compatible
    ['64:ff9b::a00:1', 'private'], // NAT64 of 10.0.0.1
    ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'], // Teredo
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'], // outside global unicast 2000::/3
  ])('when the address is %s, then it is %s', (ip, cls) => {
    expect(classifyIp(ip)).toBe(cls)
  })

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.169.0.1',
    '223.255.255.255',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
  ])('when the address is %s, then it is public', (ip) => {
    expect(classifyIp(ip)).toBe('public')
  })

  it('when the text is a name, then it is not classified', () => {
    expect(classifyIp('shop.example')).toBeUndefined()
  })
})

describe('classifyHost', () => {
  it.each([
    ['localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
    ['api.localhost', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
  ])('when the host is %s, then it is %s without DNS', (host, cls) => {
    expect(classifyHost(host)).toBe(cls)
  })

  it.each(['shop.example', 'localhost.shop.example', 'mylocalhost'])(
    'when the host is the name %s, then only DNS can tell',
    (host) => {
      expect(classifyHost(host)).toBeUndefined()
    },
  )
})
