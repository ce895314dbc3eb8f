/**
 * Lookups by key made during one pass of the event loop, answered together by one query for all their keys.
 *
 * On PostgreSQL each lookup on its own is a round trip: a Bind, Execute and Sync written to a pooled connection,
 * then a RowDescription, a DataRow, CommandComplete and ReadyForQuery parsed back, and the connection checked out
 * and in. Under load that was most of a getInfo request's CPU (bench/history/changes.json). Fifty
 * connections' lookups arriving in the same pass become one `where id = any($1)`: one round trip, one result.
 *
 * A lookup is sent at the end of the pass it was made in (a `setImmediate`), never held back for a later one, so it
 * waits no longer than the rest of that pass. It reads what is committed when the query starts, which is after the
 * lookup was made: everything acknowledged to anyone before the request arrived is in it.
 */
export class BatchedLookup<K, V> {
  readonly #run: (keys: K[]) => Promise<ReadonlyMap<K, V>>
  readonly #maxKeys: number
  readonly #retryAlone: (err: unknown) => boolean
  #pending: Map<K, Waiter<V>[]> | undefined

  /**
   * `run` answers every key it finds (a key it leaves out resolves to undefined). At most `maxKeys` keys go into
   * one query; more in one pass are split over several.
   *
   * When a query of several keys fails and `retryAlone` says the error may belong to one of them (a value the
   * database refuses, say, rather than a lost connection), each key is looked up again on its own, so that one
   * lookup's bad key fails that lookup only, as it would have unbatched. Otherwise the error rejects every lookup
   * of the query.
   */
  constructor(
    run: (keys: K[]) => Promise<ReadonlyMap<K, V>>,
    opts: { readonly maxKeys?: number; readonly retryAlone?: (err: unknown) => boolean } = {},
  ) {
    const maxKeys = opts.maxKeys ?? 500
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1)
      throw new RangeError(`maxKeys: not a positive integer: ${maxKeys}`)
    this.#run = run
    this.#maxKeys = maxKeys
    this.#retryAlone = opts.retryAlone ?? (() => false)
  }

  load(key: K): Promise<V | undefined> {
    let pending = this.#pending
    if (pending === undefined) {
      pending = new Map()
      this.#pending = pending
      setImmediate(this.#flush)
    }
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject }
      const same = pending.get(key)
      if (same === undefined) pending.set(key, [waiter])
      else same.push(waiter)
    })
  }

  readonly #flush = (): void => {
    const pending = this.#pending
    this.#pending = undefined
    if (pending === undefined) return
    const keys = [...pending.keys()]
    for (let from = 0; from < keys.length; from += this.#maxKeys)
      this.#answer(keys.slice(from, from + this.#maxKeys), pending)
  }

  #answer(keys: K[], pending: ReadonlyMap<K, Waiter<V>[]>): void {
    let query: Promise<ReadonlyMap<K, V>>
    try {
      query = this.#run(keys)
    } catch (err) {
      query = Promise.reject(err)
    }
    query.then(
      (found) => {
        for (const key of keys) for (const w of pending.get(key) ?? []) w.resolve(found.get(key))
      },
      (err: unknown) => {
        if (keys.length > 1 && this.#retryAlone(err)) {
          for (const key of keys) this.#answer([key], pending)
          return
        }
        for (const key of keys) for (const w of pending.get(key) ?? []) w.reject(err)
      },
    )
  }
}

interface Waiter<V> {
  readonly resolve: (value: V | undefined) => void
  readonly reject: (err: unknown) => void
}
