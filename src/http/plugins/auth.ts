import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Authenticated } from '../../app/authenticate-api-key.js'
import { AppError } from '../../domain/errors.js'
import { andThen, type MaybePromise } from '../../domain/maybe-promise.js'
import type { Merchant } from '../../domain/merchant.js'
import type { LimitDecision, RateLimiter } from '../../ports/rate-limiter.js'
import { handedOver } from './hand-over.js'

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
 * 3. The key's token bucket is charged (once: a request handed over by a fast path was charged there); past it,
 *    429. Every answer carries the key's RateLimit-* headers.
 * With shared limits, step 1 answers from what this instance knows (no round-trip); an address blocked through
 * other instances is refused by step 2 or 3 instead, with the same 429, so each request costs one shared decision.
 */
export function requireApiKey(
  authenticate: (key: string | undefined) => MaybePromise<Authenticated>,
  limiter?: RateLimiter,
): onRequestHookHandler {
  // A callback hook, each step taken at once when its answer is there (the in-memory limiter, a cached key): an
  // async hook cost a promise and a turn of the microtask queue per await, on every merchant request.
  return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    let admitted: MaybePromise<void>
    try {
      admitted = admit(request, reply, authenticate, limiter)
    } catch (err) {
      done(err as Error)
      return
    }
    if (admitted instanceof Promise) admitted.then(() => done(), done)
    else done()
  }
}

function admit(
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: (key: string | undefined) => MaybePromise<Authenticated>,
  limiter: RateLimiter | undefined,
): MaybePromise<void> {
  // Every answer of a merchant route is the merchant's own data (or says something about its key). The key is a
  // custom header, not Authorization, so HTTP's rule that shared caches do not store authorised answers does not
  // cover it: a caching proxy in front of the service must be told not to keep them.
  reply.header('cache-control', 'no-store')
  const ip = request.ip
  return andThen(limiter?.authBlocked(ip), (blocked) => {
    if (blocked !== undefined && !blocked.allowed) refuse(reply, blocked, TOO_MANY_FAILURES)
    return andThen(authenticated(authenticate, apiKeyOf(request.headers), reply, limiter, ip), (auth) =>
      // a request the create fast path began has had its token taken there (plugins/hand-over.ts)
      andThen(handedOver(request.raw)?.admission ?? limiter?.takeForKey(auth.keyId, ip), (admission) => {
        if (admission !== undefined) {
          if (admission.by === 'address') refuse(reply, admission.decision, TOO_MANY_FAILURES)
          const d = admission.decision
          reply
            .header('ratelimit-limit', d.limit)
            .header('ratelimit-remaining', d.remaining)
            .header('ratelimit-reset', d.resetSeconds)
          if (!d.allowed) refuse(reply, d, 'this API key is over its request rate')
        }
        request.merchant = auth.merchant
      }),
    )
  })
}

/** The API key a request sends (X-Api-Key), as every merchant route reads it. */
export function apiKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers['x-api-key']
  return (Array.isArray(header) ? header[0] : header)?.trim()
}

/** The key's merchant; a missing or wrong key counts against the address first (and is refused as blocked past it). */
function authenticated(
  authenticate: (key: string | undefined) => MaybePromise<Authenticated>,
  key: string | undefined,
  reply: FastifyReply,
  limiter: RateLimiter | undefined,
  ip: string,
): MaybePromise<Authenticated> {
  const failed = (err: unknown): MaybePromise<never> => {
    if (
      limiter === undefined ||
      !(err instanceof AppError) ||
      (err.code !== 'missing_api_key' && err.code !== 'invalid_api_key')
    )
      throw err
    return andThen(limiter.recordAuthFailure(ip), (counted) => {
      // the address was already blocked (through another instance): the answer step 1 would have given
      if (!counted.allowed) refuse(reply, counted, TOO_MANY_FAILURES)
      throw err
    })
  }
  let result: MaybePromise<Authenticated>
  try {
    result = authenticate(key)
  } catch (err) {
    return failed(err)
  }
  return result instanceof Promise ? result.catch(failed) : result
}

function refuse(reply: FastifyReply, d: LimitDecision, why: string): never {
  reply.header('retry-after', d.retryAfterSeconds)
  reply
    .header('ratelimit-limit', d.limit)
    .header('ratelimit-remaining', d.remaining)
    .header('ratelimit-reset', d.resetSeconds)
  throw new AppError('rate_limited', `${why}; retry after ${d.retryAfterSeconds} s`)
}
