/**
 * What the fast paths (get-info-fast-path.ts, create-fast-path.ts) share: the steps of the API key hook that change
 * nothing (plugins/auth.ts), and an answer written with the framework's headers in its order, its access-log line and
 * its metrics (docs/performance.md#the-fast-paths).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { Authenticated } from '../app/authenticate-api-key.js'
import { andThen, type MaybePromise } from '../domain/maybe-promise.js'
import type { Admission, RateLimiter } from '../ports/rate-limiter.js'
import type { HttpDeps } from './deps.js'
import { apiKeyOf } from './plugins/auth.js'
import type { HttpMetrics } from './plugins/metrics.js'
import { API_SECURITY_HEADERS, logAnswered, requestIdOf } from './plugins/request-id.js'
import type { WriteBatching } from './plugins/write-batching.js'

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void

export interface FastPathDeps {
  readonly authenticate: HttpDeps['authenticate']
  readonly limiter: RateLimiter | undefined
  readonly log: FastifyBaseLogger
  readonly metrics: Pick<HttpMetrics, 'recorder'>
  readonly batching: Pick<WriteBatching, 'arrived' | 'later'>
  /** The client's address as the framework takes it (TRUST_PROXY); undefined when the socket has none. */
  readonly clientAddress: (req: IncomingMessage) => string | undefined
  /** Whether the app has begun to close (the framework then answers with `Connection: close`). */
  readonly closing: () => boolean
}

/** A key the first steps of the API key hook admit, and the address it came from. */
export interface KeyAdmitted {
  readonly auth: Authenticated
  readonly ip: string
}

/**
 * The API key hook's first steps, each taken at once when its answer is there: the address not blocked, the key
 * authenticated. Undefined, or a rejection, when a step refuses: a refused key is counted by the framework's own
 * step when it is handed over, not here.
 */
export function keyAdmitted(deps: FastPathDeps, req: IncomingMessage): MaybePromise<KeyAdmitted | undefined> {
  const ip = deps.clientAddress(req)
  if (ip === undefined) return undefined
  return andThen(deps.limiter?.authBlocked(ip), (blocked) => {
    if (blocked !== undefined && !blocked.allowed) return undefined
    return andThen(deps.authenticate(apiKeyOf(req.headers)), (auth) => ({ auth, ip }))
  })
}

/** The RateLimit header values of an admitted token, undefined without a limiter; false when it was refused. */
export type RateLimitValues = readonly [limit: number, remaining: number, reset: number] | undefined

export function rateLimitValues(admission: Admission | undefined): RateLimitValues | false {
  if (admission === undefined) return undefined
  const d = admission.decision
  if (admission.by !== 'key' || !d.allowed) return false
  return [d.limit, d.remaining, d.resetSeconds]
}

const SECURITY_HEADERS = Object.entries(API_SECURITY_HEADERS).flat()

/**
 * Writes a JSON answer as the framework writes a merchant route's: the request id hook's headers, the API key
 * hook's, then the body's, in that order; then its metrics and access-log line. `started`: performance.now() at
 * its arrival.
 */
export function writeJsonAnswer(
  log: FastifyBaseLogger,
  recorded: (ms: number) => void,
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string,
  ratelimit: RateLimitValues,
  started: number,
): void {
  const reqId = requestIdOf(req)
  const headers = [...SECURITY_HEADERS, 'x-request-id', reqId, 'cache-control', 'no-store']
  if (ratelimit !== undefined) {
    const [limit, remaining, reset] = ratelimit
    headers.push('ratelimit-limit', String(limit), 'ratelimit-remaining', String(remaining))
    headers.push('ratelimit-reset', String(reset))
  }
  headers.push('content-type', 'application/json; charset=utf-8')
  headers.push('content-length', String(Buffer.byteLength(body)))
  res.writeHead(status, headers)
  res.end(body)
  const ms = performance.now() - started
  recorded(ms)
  logAnswered(log, req.method ?? '', req.url ?? '', status, ms, reqId)
}
