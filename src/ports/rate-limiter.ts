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
 * Request limits (API.md B8). In memory per instance by default; shared through Redis when configured, so
 * that several instances enforce one limit.
 */
export interface RateLimiter {
  /** Takes one token from the API key's bucket. */
  takeForKey(keyId: string): Promise<LimitDecision>
  /** Whether a client address is blocked for too many failed authentications this minute (does not count). */
  authBlocked(address: string): Promise<LimitDecision>
  /** Counts one failed authentication of a client address. */
  recordAuthFailure(address: string): Promise<void>
  close(): Promise<void>
}
