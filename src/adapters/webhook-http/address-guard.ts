/**
 * The connection-time address check of outgoing webhooks (docs/webhooks.md#addresses; docs/architecture.md#libraries: "an Agent with a
 * connect-time address check"). Every address a webhook connection is opened to is judged — after DNS, on the
 * very address the socket uses — so neither a name that resolves to 127.0.0.1 nor one that changes its answer
 * between a check and the connection (DNS rebinding) reaches a private network.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { buildConnector } from 'undici'
import { classifyIp, isPublic, type AddressClass } from '../../domain/network-address.js'
import { withArticle } from '../../domain/errors.js'

export const ADDRESS_REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED'

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED
  constructor(
    readonly address: string,
    readonly addressClass: AddressClass,
    hostname: string,
  ) {
    // The merchant reads this (delivery log, test events): a name's private address is not told, or webhooks
    // would map the operator's internal DNS for anyone with a key. The operator's log has `address`.
    const what = hostname === address ? `${address} is` : `${hostname} resolves to`
    super(
      `address not allowed: ${what} ${withArticle(addressClass)} address; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE)`,
    )
    this.name = 'AddressRefusedError'
  }
}

/** The class of a resolved address; anything unparsable counts as reserved (refused). */
export function addressClassOf(address: string): AddressClass {
  return classifyIp(address) ?? 'reserved'
}

/**
 * A `lookup` for net/tls.connect that resolves as usual and keeps only public addresses: the connection can
 * use no other. A name with no public address fails with AddressRefusedError.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...(options as LookupOptions), all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0)
    const allowed = addresses.filter((a) => isPublic(addressClassOf(a.address)))
    const first = allowed[0]
    if (first === undefined) {
      const refused = addresses[0]
      const error = new AddressRefusedError(
        refused?.address ?? hostname,
        refused === undefined ? 'reserved' : addressClassOf(refused.address),
        hostname,
      )
      return callback(Object.assign(error, { errno: 0, syscall: 'lookup', hostname }) as NodeJS.ErrnoException, '', 0)
    }
    if ((options as LookupOptions).all === true)
      return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed)
    return callback(null, first.address, first.family)
  })
}

/**
 * undici's connector with the check: an IP literal host is judged here (net.connect skips `lookup` for
 * literals), a name through `publicOnlyLookup`. Redirects are never followed by `request`, so every hop is ours.
 */
export function guardedConnector(opts: { timeoutMs: number }): buildConnector.connector {
  const connect = buildConnector({ lookup: publicOnlyLookup, timeout: opts.timeoutMs })
  return (options, callback) => {
    const host = options.hostname
    if (isIP(host) !== 0) {
      const cls = addressClassOf(host)
      if (!isPublic(cls)) {
        queueMicrotask(() => callback(new AddressRefusedError(host, cls, host), null))
        return
      }
    }
    connect(options, callback)
  }
}
