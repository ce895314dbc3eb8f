import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { writeAccessLine } from './access-log.js'
import { elapsedMs } from './hand-over.js'

// The prefixes of every credential the service issues: API keys, webhook secrets, admin tokens.
const CREDENTIAL_PREFIXES = ['mk_', 'whsec_', 'adm_'] as const

// A client's id is echoed only when it is a short token: anything else could forge log lines or headers.
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/

// ...and not when it is, or holds, a credential: an API key (or webhook secret) sent as X-Request-Id by mistake, or
// a SHA-256 in hex (a key's stored hash) — the id goes into every log line of the request.
const CREDENTIAL_AS_ID = new RegExp(`${CREDENTIAL_PREFIXES.join('|')}|^[0-9A-Fa-f]{64}$`, 'i')

// Credentials a client put in the URL by mistake (`?api_key=mk_…`, an admin token): the access log keeps the URL but not them.
const CREDENTIAL_IN_URL = new RegExp(`(${CREDENTIAL_PREFIXES.join('|')})[A-Za-z0-9_%+/=-]+`, 'g')

// A dashboard invitation or reset link (docs/dashboard.md#invitations): its last segment is the one-time token.
const INVITE_PATH = '/dashboard/invite/'
const DASHBOARD_LINK = new RegExp(`(${INVITE_PATH})[^/?#]+`, 'g')

// A percent-encoded letter, digit or `-._~`: the same character to the server (RFC 3986 §2.3), so `mk%5F…` is a key.
const ENCODED_UNRESERVED = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])/g

/**
 * The request URL as the access log writes it: API keys and webhook secrets in it replaced by `[redacted]`, also when
 * some of their characters are percent-encoded (those are decoded first; nothing else in the URL changes).
 */
export function loggableUrl(url: string): string {
  const plain = url.includes('%')
    ? url.replace(ENCODED_UNRESERVED, (e) => String.fromCharCode(Number.parseInt(e.slice(1), 16)))
    : url
  // what almost every URL is: none of what the two patterns start with (each pattern scans the whole URL)
  if (!plain.includes(INVITE_PATH) && !CREDENTIAL_PREFIXES.some((prefix) => plain.includes(prefix))) return plain
  return plain.replace(CREDENTIAL_IN_URL, '$1[redacted]').replace(DASHBOARD_LINK, '$1[redacted]')
}

/** Fastify's `genReqId`: the client's `x-request-id` when it is a safe token and no credential, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && CLIENT_ID.test(given) && !CREDENTIAL_AS_ID.test(given) ? given : randomUUID()
}

/**
 * docs/api.md#conventions: every response carries `x-request-id`; every log line of the request carries it as `reqId`
 * (Fastify's child logger), including the one access-log line written here.
 */
/**
 * Security headers of every answer outside the payment pages (those get helmet's fuller set, with their own CSP,
 * in routes/pay.ts): fixed values, one assignment per request instead of helmet's per-request header building.
 * No Cross-Origin-Resource-Policy: shops embed `qr_url` images in their own pages.
 */
export const API_SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
} as const
const API_SECURITY_HEADER_NAMES = Object.keys(API_SECURITY_HEADERS)

/** The payment pages' first hook: take the API's security headers off, so that helmet's own set applies. */
export function apiSecurityHeadersOff(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  for (const name of API_SECURITY_HEADER_NAMES) reply.removeHeader(name)
  done()
}

export function registerRequestId(app: FastifyInstance): void {
  // Callback-style hooks: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    // Reply headers, not the raw response's: a header set on the raw response makes Node validate every reply
    // header a second time when the answer is written. The payment pages drop these for helmet's (apiSecurityHeadersOff).
    reply.headers(API_SECURITY_HEADERS)
    reply.header('x-request-id', request.id)
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    logAnswered(request.log, request.method, request.url, reply.statusCode, elapsedMs(request.raw, reply.elapsedTime))
    done()
  })
}

/**
 * The access-log line of an answered request: on the request's own logger, whose lines carry `reqId`, or given
 * `reqId` on the app's logger (the same line, without a logger made for one request: getInfo's fast path).
 */
export function logAnswered(
  log: FastifyBaseLogger,
  method: string,
  url: string,
  statusCode: number,
  ms: number,
  reqId?: string,
): void {
  writeAccessLine(log, method, loggableUrl(url), statusCode, Math.round(ms * 100) / 100, reqId)
}
