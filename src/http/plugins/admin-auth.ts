import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { AdminTokenRecord } from '../../domain/admin-token.js'
import { AppError } from '../../domain/errors.js'
import type { RateLimiter } from '../../ports/rate-limiter.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin token of the request; set on admin routes by `requireAdminToken`. */
    adminToken: AdminTokenRecord
  }
}

const BEARER = /^Bearer +(\S+) *$/i

/**
 * The onRequest hook of every admin route (docs/admin-api.md#authentication): `Authorization: Bearer adm_…`.
 * A missing or wrong token answers 401 `unauthenticated` (with `WWW-Authenticate: Bearer`, RFC 6750) and counts
 * against the address like a wrong API key does (docs/api.md#limits): past the limit, 429 without a lookup.
 */
export function requireAdminToken(
  authenticate: (token: string | undefined) => Promise<AdminTokenRecord>,
  limiter?: RateLimiter,
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store')
    if (limiter !== undefined) {
      const blocked = await limiter.authBlocked(request.ip)
      if (!blocked.allowed) {
        reply.header('retry-after', blocked.retryAfterSeconds)
        throw new AppError(
          'rate_limited',
          `too many failed authentications from this address; retry after ${blocked.retryAfterSeconds} s`,
        )
      }
    }
    const header = request.headers.authorization
    const token = header === undefined ? undefined : (BEARER.exec(header)?.[1] ?? 'malformed')
    try {
      request.adminToken = await authenticate(token)
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthenticated') {
        reply.header('www-authenticate', 'Bearer realm="admin"')
        if (limiter !== undefined) await limiter.recordAuthFailure(request.ip)
      }
      throw err
    }
  }
}
