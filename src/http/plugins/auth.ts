import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { Authenticated } from '../../app/authenticate-api-key.js'
import { AppError } from '../../domain/errors.js'
import type { Merchant } from '../../domain/merchant.js'
import type { LimitDecision, RateLimiter } from '../../ports/rate-limiter.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The merchant of the request's X-Api-Key; set on merchant routes by `requireApiKey`. */
    merchant: Merchant
  }
}

const TOO_MANY_FAILURES = 'too many failed authentications from this address'

/**
 * The onRequest hook of every merchant route (docs/api.md#authentication, docs/api.md#limits): runs before body parsing and validation.
 * 1. An address past its failed-authentication limit gets 429 without its key being looked at.
 * 2. The key is authenticated; a missing or wrong key counts against the address.
 * 3. The key's token bucket is charged; past it, 429. Every answer carries the key's RateLimit-* headers.
 * With shared limits, step 1 answers from what this instance knows (no round-trip); an address blocked through
 * other instances is refused by step 2 or 3 instead, with the same 429, so each request costs one shared decision.
 */
export function requireApiKey(
  authenticate: (key: string | undefined) => Promise<Authenticated>,
  limiter?: RateLimiter,
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // Every answer of a merchant route is the merchant's own data (or says something about its key). The key is a
    // custom header, not Authorization, so HTTP's rule that shared caches do not store authorised answers does not
    // cover it: a caching proxy in front of the service must be told not to keep them.
    reply.header('cache-control', 'no-store')
    if (limiter !== undefined) {
      const blocked = await limiter.authBlocked(request.ip)
      if (!blocked.allowed) refuse(reply, blocked, TOO_MANY_FAILURES)
    }
    const header = request.headers['x-api-key']
    const key = Array.isArray(header) ? header[0] : header
    let auth: Authenticated
    try {
      auth = await authenticate(key?.trim())
    } catch (err) {
      if (
        limiter !== undefined &&
        err instanceof AppError &&
        (err.code === 'missing_api_key' || err.code === 'invalid_api_key')
      ) {
        const counted = await limiter.recordAuthFailure(request.ip)
        // the address was already blocked (through another instance): the answer step 1 would have given
        if (!counted.allowed) refuse(reply, counted, TOO_MANY_FAILURES)
      }
      throw err
    }
    if (limiter !== undefined) {
      const admission = await limiter.takeForKey(auth.keyId, request.ip)
      if (admission.by === 'address') refuse(reply, admission.decision, TOO_MANY_FAILURES)
      const d = admission.decision
      reply
        .header('ratelimit-limit', d.limit)
        .header('ratelimit-remaining', d.remaining)
        .header('ratelimit-reset', d.resetSeconds)
      if (!d.allowed) refuse(reply, d, 'this API key is over its request rate')
    }
    request.merchant = auth.merchant
  }
}

function refuse(reply: FastifyReply, d: LimitDecision, why: string): never {
  reply.header('retry-after', d.retryAfterSeconds)
  reply
    .header('ratelimit-limit', d.limit)
    .header('ratelimit-remaining', d.remaining)
    .header('ratelimit-reset', d.resetSeconds)
  throw new AppError('rate_limited', `${why}; retry after ${d.retryAfterSeconds} s`)
}
