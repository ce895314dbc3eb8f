import type { MaybePromise } from '../domain/maybe-promise.js'

/** The outcome of one request against a limit, enough for the `RateLimit-*` and `Retry-After` headers. */
export interface LimitDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the limit is fully reset. */
  readonly resetSeconds: number
  /** Seconds to wait before retrying (when refused). */
  readonly retryAfterSeconds: number
}

/**
 * What `takeForKey` decided: `by: 'address'` when the client address turned out to be past its failed-authentication
 * limit (refused, and no token taken), else the key bucket's decision.
 */
export type Admission =
  | { readonly by: 'key'; readonly decision: LimitDecision }
  | { readonly by: 'address'; readonly decision: LimitDecision }

/**
 * Request limits (docs/api.md#limits). In memory per instance by default; shared through Redis when configured, so
 * that several instances enforce one limit.
 *
 * A keyed request costs one shared decision: `authBlocked` may answer from what this instance already knows, and
 * whatever another instance has learnt since is caught by the one call that follows it (`takeForKey` or
 * `recordAuthFailure`), which then refuses as `authBlocked` would have.
 *
 * A limiter that decides without I/O (in memory) returns its decisions themselves, not promises of them.
 */
export interface RateLimiter {
  /**
   * Whether a client address is blocked for too many failed authentications this minute (does not count).
   * Where limits are shared this is what this instance knows, without I/O.
   */
  authBlocked(address: string): MaybePromise<LimitDecision>
  /** Takes one token from the API key's bucket for a request from `address`, unless the address is blocked. */
  takeForKey(keyId: string, address: string): MaybePromise<Admission>
  /**
   * Counts one failed authentication of a client address. Not allowed when the address was already past its limit
   * before this failure (another instance blocked it): the request is then refused as a blocked one.
   */
  recordAuthFailure(address: string): MaybePromise<LimitDecision>
  close(): Promise<void>
}
