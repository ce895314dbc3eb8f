/**
 * Which network addresses a webhook may be sent to (docs/webhooks.md#addresses: loopback, private, link-local and other
 * non-public addresses are refused unless the operator allows them). Pure parsing and range tables: used on
 * the literal host of a callback_url when an invoice is created, and on every resolved address when the
 * webhook adapter connects (the check that matters: a name can resolve anywhere, and differently each time).
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved'

type Range = readonly [base: number, prefix: number, cls: AddressClass]

const v4 = (a: number, b: number, c: number, d: number): number => ((a << 24) >>> 0) + (b << 16) + (c << 8) + d

// First match wins: the narrower ranges come before the wider ones that contain them.
const V4_RANGES: readonly Range[] = [
  [v4(0, 0, 0, 0), 32, 'unspecified'],
  [v4(0, 0, 0, 0), 8, 'this-network'],
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(100, 64, 0, 0), 10, 'cgnat'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local'],
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 0, 0, 0), 24, 'reserved'], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24, 'documentation'],
  [v4(192, 88, 99, 0), 24, 'reserved'], // former 6to4 relay anycast
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(198, 18, 0, 0), 15, 'reserved'], // benchmarking
  [v4(198, 51, 100, 0), 24, 'documentation'],
  [v4(203, 0, 113, 0), 24, 'documentation'],
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(255, 255, 255, 255), 32, 'broadcast'],
  [v4(240, 0, 0, 0), 4, 'reserved'],
]

function inV4Range(addr: number, base: number, prefix: number): boolean {
  if (prefix === 0) return true
  const mask = prefix === 32 ? 0xffffffff : (0xffffffff << (32 - prefix)) >>> 0
  return (addr & mask) >>> 0 === (base & mask) >>> 0
}

export function classifyIpv4(addr: number): AddressClass {
  for (const [base, prefix, cls] of V4_RANGES) if (inV4Range(addr, base, prefix)) return cls
  return 'public'
}

/**
 * An IPv4 address in any spelling the WHATWG URL parser and inet_aton accept: dotted decimal, fewer parts
 * (`127.1`), one number (`2130706433`), hexadecimal (`0x7f000001`, `0x7f.1`) and octal (`0177.0.0.1`) parts.
 * Returns the address as an unsigned 32-bit number, or undefined when the text is not an IPv4 address.
 */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.')
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop() // one trailing dot, as in a FQDN
  if (parts.length === 0 || parts.length > 4) return undefined
  const nums: number[] = []
  for (const p of parts) {
    let n: number
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16)
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8)
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = Number(p)
    else return undefined
    if (!Number.isSafeInteger(n)) return undefined
    nums.push(n)
  }
  const last = nums.pop() ?? 0
  if (nums.some((n) => n > 255)) return undefined
  if (last >= 256 ** (4 - nums.length)) return undefined
  let addr = 0
  nums.forEach((n, i) => {
    addr += n * 256 ** (3 - i)
  })
  return addr + last
}

const BYTE = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])'
/** Dotted decimal, each part 0–255 without a leading zero (`010.0.0.1` would be read as octal by some tools). */
const DOTTED_QUAD = new RegExp(`^${BYTE}\\.${BYTE}\\.${BYTE}\\.${BYTE}$`)

/** Whether `text` is an IPv4 address in dotted decimal, each part 0–255 without a leading zero. */
export function isDottedQuad(text: string): boolean {
  return DOTTED_QUAD.test(text)
}

/**
 * An IPv6 address (optionally in brackets, with a zone id, with `::` and a trailing dotted IPv4 part) as eight
 * 16-bit groups, or undefined when the text is not an IPv6 address.
 */
export function parseIpv6(text: string): number[] | undefined {
  let s = text
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1)
  const zone = s.indexOf('%')
  if (zone >= 0) s = s.slice(0, zone)
  if (!s.includes(':')) return undefined
  const halves = s.split('::')
  if (halves.length > 2) return undefined
  const groupsOf = (part: string, isEnd: boolean): number[] | undefined => {
    if (part === '') return []
    const out: number[] = []
    const items = part.split(':')
    for (let i = 0; i < items.length; i += 1) {
      const item = items[i] ?? ''
      if (isEnd && i === items.length - 1 && item.includes('.')) {
        // the dotted-quad tail of e.g. ::ffff:127.0.0.1, at the address's end only: strictly four decimal bytes,
        // without leading zeros (as inet_pton and the URL parser read it)
        if (!DOTTED_QUAD.test(item)) return undefined
        const [a = 0, b = 0, c = 0, d = 0] = item.split('.').map(Number)
        out.push(a * 256 + b, c * 256 + d)
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(item)) return undefined
        out.push(parseInt(item, 16))
      }
    }
    return out
  }
  const head = groupsOf(halves[0] ?? '', halves.length === 1)
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '', true) : []
  if (head === undefined || tail === undefined) return undefined
  if (halves.length === 1) return head.length === 8 ? head : undefined
  const missing = 8 - head.length - tail.length
  if (missing < 1) return undefined
  return [...head, ...new Array<number>(missing).fill(0), ...tail]
}

const prefixMatches = (g: readonly number[], prefix: readonly number[], bits: number): boolean => {
  for (let i = 0; i * 16 < bits; i += 1) {
    const take = Math.min(16, bits - i * 16)
    const mask = (0xffff << (16 - take)) & 0xffff
    if (((g[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false
  }
  return true
}

const v4From = (hi: number, lo: number): number => hi * 65536 + lo

export function classifyIpv6(g: readonly number[]): AddressClass {
  const zeroUpTo = (n: number): boolean => g.slice(0, n).every((x) => x === 0)
  if (g.every((x) => x === 0)) return 'unspecified'
  if (zeroUpTo(7) && g[7] === 1) return 'loopback'
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d): the IPv4 address decides
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIpv4(v4From(g[6] ?? 0, g[7] ?? 0))
  if (zeroUpTo(6)) return classifyIpv4(v4From(g[6] ?? 0, g[7] ?? 0))
  // NAT64 well-known prefix 64:ff9b::/96 reaches the embedded IPv4 address
  if (prefixMatches(g, [0x64, 0xff9b, 0, 0, 0, 0], 96)) return classifyIpv4(v4From(g[6] ?? 0, g[7] ?? 0))
  if (prefixMatches(g, [0x64, 0xff9b, 1], 48)) return 'private' // local-use NAT64
  // 6to4 (2002::/16) embeds the IPv4 address of its relay in bits 16–47
  if (prefixMatches(g, [0x2002], 16)) return classifyIpv4(v4From(g[1] ?? 0, g[2] ?? 0))
  if (prefixMatches(g, [0xfc00], 7)) return 'unique-local'
  if (prefixMatches(g, [0xfe80], 10)) return 'link-local'
  if (prefixMatches(g, [0xfec0], 10)) return 'private' // deprecated site-local
  if (prefixMatches(g, [0xff00], 8)) return 'multicast'
  if (prefixMatches(g, [0x2001, 0x0db8], 32)) return 'documentation'
  if (prefixMatches(g, [0x3fff], 20)) return 'documentation'
  if (prefixMatches(g, [0x2001, 0], 32)) return 'reserved' // Teredo: an obfuscated IPv4 address
  if (prefixMatches(g, [0x2001, 0x10], 28) || prefixMatches(g, [0x2001, 0x20], 28)) return 'reserved' // ORCHID
  if (prefixMatches(g, [0x0100, 0, 0, 0], 64)) return 'reserved' // discard-only
  // global unicast is 2000::/3; everything else is unassigned or special
  return prefixMatches(g, [0x2000], 3) ? 'public' : 'reserved'
}

/** The class of an IP address literal (IPv4 in any spelling, IPv6 with or without brackets); undefined when not one. */
export function classifyIp(text: string): AddressClass | undefined {
  const a4 = parseIpv4(text)
  if (a4 !== undefined) return classifyIpv4(a4)
  const a6 = parseIpv6(text)
  return a6 === undefined ? undefined : classifyIpv6(a6)
}

/**
 * The class of a URL's host when it can be known without DNS: an IP literal, or a name reserved for the
 * loopback interface (RFC 6761 `localhost`, `*.localhost`). Undefined for an ordinary name: only the address it
 * resolves to at connection time can be judged.
 */
export function classifyHost(hostname: string): AddressClass | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback'
  return classifyIp(host)
}

export function isPublic(cls: AddressClass): boolean {
  return cls === 'public'
}
