import { isDottedQuad, parseIpv4, parseIpv6 } from './network-address.js'

/**
 * Address ranges in CIDR notation (`185.71.76.0/27`, `2a02:5180::/32`) or single addresses, and whether an address
 * lies in one: used to check the sender of an unsigned notification against an acquirer's published ranges. Pure:
 * the caller resolves the sender address (`TRUST_PROXY`) first.
 *
 * An IPv4-mapped IPv6 address (`::ffff:185.71.76.1`, what a dual-stack socket reports for an IPv4 peer) is its
 * IPv4 address, in an address and in a range alike, so either spelling matches either kind of range.
 */
export type IpRange =
  | { readonly family: 4; readonly base: number; readonly prefix: number }
  | { readonly family: 6; readonly base: readonly number[]; readonly prefix: number }

type Address = { readonly family: 4; readonly value: number } | { readonly family: 6; readonly groups: number[] }

const PREFIX = /^(0|[1-9][0-9]{0,2})$/

/** A canonical address: IPv4 in dotted decimal only (no `127.1`, octal or hex spellings), or IPv6 without a zone. */
function parseAddress(text: string): Address | undefined {
  if (isDottedQuad(text)) {
    const value = parseIpv4(text)
    return value === undefined ? undefined : { family: 4, value }
  }
  if (text.includes('%') || text.startsWith('[')) return undefined
  const groups = parseIpv6(text)
  if (groups === undefined) return undefined
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return { family: 4, value: (groups[6] ?? 0) * 65536 + (groups[7] ?? 0) }
  return { family: 6, groups }
}

/**
 * Parses `address` or `address/prefix` (IPv4 or IPv6); undefined when the text is neither. Bits set past the
 * prefix are ignored (`185.71.76.5/27` is `185.71.76.0/27`), as most allow-list tools read them.
 */
export function parseIpRange(text: string): IpRange | undefined {
  const slash = text.indexOf('/')
  const addressText = slash < 0 ? text : text.slice(0, slash)
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1)
  if (prefixText !== undefined && !PREFIX.test(prefixText)) return undefined
  const address = parseAddress(addressText.trim() === addressText ? addressText : '')
  if (address === undefined) return undefined
  const mapped = address.family === 4 && addressText.includes(':')
  const width = address.family === 4 ? 32 : 128
  let prefix = prefixText === undefined ? width : Number(prefixText)
  if (mapped) {
    // ::ffff:a.b.c.d/n covers the IPv4 range of its last 32 bits; a prefix shorter than 96 would reach past them
    if (prefixText !== undefined && (prefix < 96 || prefix > 128)) return undefined
    prefix = prefixText === undefined ? 32 : prefix - 96
  }
  if (prefix > width) return undefined
  return address.family === 4 ? { family: 4, base: address.value, prefix } : { family: 6, base: address.groups, prefix }
}

function v4Mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0
}

function inRange(address: Address, range: IpRange): boolean {
  if (address.family === 4 && range.family === 4) {
    const mask = v4Mask(range.prefix)
    return (address.value & mask) >>> 0 === (range.base & mask) >>> 0
  }
  if (address.family === 6 && range.family === 6) {
    for (let i = 0; i * 16 < range.prefix; i += 1) {
      const take = Math.min(16, range.prefix - i * 16)
      const mask = (0xffff << (16 - take)) & 0xffff
      if (((address.groups[i] ?? 0) & mask) !== ((range.base[i] ?? 0) & mask)) return false
    }
    return true
  }
  return false
}

/** Whether `address` (a canonical IPv4 or IPv6 address) is in `range`; false when it is not an address at all. */
export function isInIpRange(address: string, range: IpRange): boolean {
  const parsed = parseAddress(address)
  return parsed !== undefined && inRange(parsed, range)
}

/** Whether `address` is in any of `ranges`; false for text that is not an address (never a throw). */
export function isInAnyIpRange(address: string, ranges: readonly IpRange[]): boolean {
  const parsed = parseAddress(address)
  return parsed !== undefined && ranges.some((range) => inRange(parsed, range))
}
