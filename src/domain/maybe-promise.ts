/**
 * A result that is there at once or comes later. Ports whose in-memory adapter answers without I/O (the rate limiter,
 * the API key cache) return the value itself then: a request that needs no I/O is not made to wait for the
 * microtask queue, and allocates no promise, at every step of its authentication (docs/performance.md).
 */
export type MaybePromise<T> = T | Promise<T>

/** `fn` applied to `value`: at once when it is a plain value, once it resolves when it is a promise. */
export function andThen<T, R>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value)
}
