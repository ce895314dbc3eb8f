import { StoreUnavailableError } from '../../ports/store.js'

/** Runs a database promise, turning "the database cannot be reached or written" into StoreUnavailableError. */
export type Guard = <T>(work: Promise<T>) => Promise<T>

/** Kysely's own refusal once the store was closed (e.g. a request still in flight during shutdown). */
const DESTROYED = 'driver has already been destroyed'

/**
 * `isUnavailable` is the dialect's classifier. Anything it does not claim — constraint violations, syntax and
 * programming errors, the use case's own errors thrown inside a transaction — passes through unchanged.
 */
export function translateUnavailable(err: unknown, isUnavailable: (err: unknown) => boolean): unknown {
  if (err instanceof StoreUnavailableError) return err
  if (!(err instanceof Error)) return err
  if (isUnavailable(err) || err.message === DESTROYED) {
    return new StoreUnavailableError(`database unavailable: ${err.message}`, { cause: err })
  }
  return err
}

export function createGuard(isUnavailable: (err: unknown) => boolean): Guard {
  const rethrow = (err: unknown): never => {
    throw translateUnavailable(err, isUnavailable)
  }
  return (work) => work.catch(rethrow)
}
