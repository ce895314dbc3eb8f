/**
 * The variables that name where things are: HOST, PUBLIC_URL, DATABASE_URL, TRUST_PROXY, REDIS_URL. A value that
 * may hold a password (DATABASE_URL, REDIS_URL) is never quoted back in a problem.
 */
import { isDottedQuad, parseIpv6 } from '../domain/network-address.js'
import type { Report } from './env.js'

export type DatabaseConfig =
  { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string }

/** HOST: an IP address or a host name (letters, digits, hyphens, dots); anything else fails at listen() (DNS). */
export function checkHost(host: string, bad: Report): void {
  if (
    !/^[0-9A-Fa-f:.]+$/.test(host) &&
    !/^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/.test(
      host,
    )
  ) {
    bad('HOST', `must be an IP address or a host name, got "${host}"`)
  }
}

/** PUBLIC_URL: an absolute http(s) URL, without a query, a fragment or an empty path segment; no trailing slash. */
export function publicUrl(text: string, bad: Report): string {
  let url = text
  try {
    const u = new URL(url)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') bad('PUBLIC_URL', 'must be an http(s) URL')
    // the raw text: a bare `?` or `#` leaves URL's search and hash empty, and would end up inside every pay_url
    if (/[?#]/.test(url)) bad('PUBLIC_URL', 'must not have a query or fragment')
    url = url.replace(/\/+$/, '')
    // an empty path segment: the pages' links start with the path, and one that starts with `//` (a typo such as
    // https://shop.example//payments) reads as another host (`//payments/pay/…`), in links and in redirects
    if (new URL(url).pathname.includes('//')) bad('PUBLIC_URL', 'must not have an empty path segment (`//`)')
  } catch {
    bad('PUBLIC_URL', `must be an absolute URL, got "${url}"`)
  }
  return url
}

/** DATABASE_URL: `sqlite:<path>` (`sqlite::memory:` too) or `postgres://…`. */
export function database(text: string, bad: Report): DatabaseConfig {
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length)
    if (path !== '') return { kind: 'sqlite', path }
    bad('DATABASE_URL', 'sqlite: needs a path, e.g. sqlite:./data/invoice-service.db or sqlite::memory:')
  } else if (/^postgres(ql)?:\/\//.test(text)) {
    // parsed now, so that a typo stops the start here and not as "Invalid URL" from the driver; never quoted back
    // (it may hold a password)
    if (!postgresUrlParses(text))
      bad(
        'DATABASE_URL',
        'is not a valid URL: postgres://user:password@host:5432/database (percent-encode special characters)',
      )
    return { kind: 'postgres', url: text }
  } else {
    bad('DATABASE_URL', 'must start with sqlite: or postgres://')
  }
  return { kind: 'sqlite', path: './data/invoice-service.db' }
}

/**
 * Whether pg can read `url` as a connection string: as a URL, after pg's own fix-ups (spaces and stray `%` encoded;
 * `user@/db?host=/socket/dir`, a socket instead of a host, read with a stand-in host).
 */
function postgresUrlParses(url: string): boolean {
  try {
    const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url
    return URL.canParse(text) || URL.canParse(text.replace('@/', '@socket/'))
  } catch {
    return false // encodeURI: a lone surrogate
  }
}

/**
 * TRUST_PROXY: a hop count (1–10), or a comma-separated list of addresses and CIDR ranges (IPv4 or IPv6) or the
 * names loopback, linklocal and uniquelocal. `true` (trust any sender's X-Forwarded-For) is not offered: a client
 * reaching the service directly could then pick the address it is limited as.
 */
export function trustProxy(text: string | undefined, bad: Report): false | number | readonly string[] {
  if (text === undefined || text === 'false') return false
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text)
    if (hops >= 1 && hops <= 10) return hops
    bad('TRUST_PROXY', `a hop count must be from 1 to 10, got "${text}"`)
    return false
  }
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const wrong = entries.filter((e) => !isProxyEntry(e))
  if (entries.length === 0 || wrong.length > 0) {
    bad(
      'TRUST_PROXY',
      `must be a hop count or proxy addresses/CIDR ranges such as 10.0.0.0/8,loopback; not "${wrong[0] ?? text}"`,
    )
    return false
  }
  return entries
}

/**
 * One TRUST_PROXY entry as the proxy check (proxy-addr) will take it: a name it knows, or an IPv4/IPv6 address with
 * an optional prefix length from 1 to the address's bits (a /0 would trust every sender, which is not offered, as
 * `true` is not). Checked here, so that `999.1.1.1` or `10.0.0.0/99` is a configuration error naming the
 * variable, not a crash of the HTTP layer at start. IPv4 in dotted decimal only (`010.0.0.1` would be read as octal
 * by some tools); IPv6 without brackets or a zone.
 */
function isProxyEntry(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true
  const [address = '', prefix, extra] = entry.split('/')
  const bits = isDottedQuad(address)
    ? 32
    : /^[0-9A-Fa-f:.]+$/.test(address) && parseIpv6(address) !== undefined
      ? 128
      : 0
  if (bits === 0 || extra !== undefined) return false
  return prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= bits)
}

/** `REDIS_URL=redis://[user:password@]host:port[/db]` (or rediss:// for TLS); undefined: limits per instance. */
export function redisUrl(text: string | undefined, bad: Report): string | undefined {
  if (text === undefined) return undefined
  try {
    const u = new URL(text)
    if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') bad('REDIS_URL', 'must start with redis:// or rediss://')
    else if (u.hostname === '') bad('REDIS_URL', 'must name a host, e.g. redis://127.0.0.1:6379')
  } catch {
    // never echo the value: it may hold a password
    bad('REDIS_URL', 'must be a URL such as redis://127.0.0.1:6379')
  }
  return text
}
