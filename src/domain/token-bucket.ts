/**
 * A token bucket (docs/api.md#limits: per API key, `rate` requests a second sustained, bursts of `burst`).
 * Pure: the caller keeps the state and passes the time.
 */
export interface Bucket {
  readonly tokens: number
  readonly updatedMs: number
}

export interface BucketDecision {
  readonly bucket: Bucket
  readonly allowed: boolean
  /** Whole requests left right after this one. */
  readonly remaining: number
  /** Milliseconds until one more request would be allowed (0 when allowed). */
  readonly retryAfterMs: number
  /** Milliseconds until the bucket is full again. */
  readonly resetMs: number
}

export function takeToken(previous: Bucket | undefined, nowMs: number, rate: number, burst: number): BucketDecision {
  const elapsed = previous === undefined ? 0 : Math.max(0, nowMs - previous.updatedMs)
  const refilled = previous === undefined ? burst : Math.min(burst, previous.tokens + (elapsed * rate) / 1000)
  const allowed = refilled >= 1
  const tokens = allowed ? refilled - 1 : refilled
  return {
    bucket: { tokens, updatedMs: nowMs },
    allowed,
    remaining: Math.floor(tokens),
    retryAfterMs: allowed ? 0 : Math.ceil(((1 - tokens) * 1000) / rate),
    resetMs: Math.ceil(((burst - tokens) * 1000) / rate),
  }
}
