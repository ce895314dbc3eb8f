import type { CompiledQuery, Compilable, Kysely, QueryResult } from 'kysely'
import type { Database } from './schema.js'
import type { Guard } from './unavailable.js'

/**
 * A read answered synchronously by the adapter (SQLite's read-only connection), skipping Kysely's executor and
 * its promise chain; undefined when the query must take the ordinary path. `firstRow`: the query returns at most
 * one row (a key, a unique index, a limit of 1), so the adapter may stop at the first (SQLite: `get`, not `all`).
 */
export type DirectRead = (query: CompiledQuery, firstRow: boolean) => QueryResult<unknown> | undefined

/** How many rows a lookup returns: at most one (`first`), or any number. */
export type LookupRows = 'first' | 'all'

/**
 * A statement outside transactions run by the adapter as the named prepared statement `name` (PostgreSQL): the
 * server parses and plans it once per connection instead of on every call. `name` always stands for the same SQL
 * text. The hot lookups use it, and the insert of a new invoice (Store.insertInvoice).
 */
export type PreparedQuery = (name: string, query: CompiledQuery) => Promise<QueryResult<unknown>>

/**
 * A write outside transactions that the adapter commits with others (SQLite: in the open group-commit batch, without
 * a savepoint or Kysely's transaction around it), resolved once that commit is durable.
 */
export type BatchedWrite = (query: CompiledQuery) => Promise<QueryResult<unknown>>

/** How the adapter can run a hot statement outside transactions faster than Kysely's executor, if it can. */
export interface FastPaths {
  readonly direct?: DirectRead | undefined
  readonly prepared?: PreparedQuery | undefined
  /** For the insert of a new invoice (Store.insertInvoice), where the adapter has it. */
  readonly batchedWrite?: BatchedWrite | undefined
  /**
   * True where each lookup is a round trip of its own (PostgreSQL): the lookups by id, and those by order_id, made
   * during one pass of the event loop are answered by one query for all of them (batched-lookup.ts).
   */
  readonly batched?: boolean | undefined
}

interface Entry {
  readonly compiled: CompiledQuery
  /** For each parameter of the compiled query: the index of the argument it takes, or -1 for a constant. */
  readonly slots: readonly number[]
}

/**
 * Hot lookups compiled once. Kysely builds and compiles a query's tree on every call (a large share of a
 * getInfo request's CPU in profiles); the SQL text of a lookup never changes, only its arguments. The query is
 * built once with sentinel arguments, and each call substitutes the real ones by position.
 */
export class QueryCache {
  readonly #entries = new Map<string, Entry>()

  /**
   * Runs the lookup `name` (built by `build` the first time) with `args` and maps its rows. Where the adapter has a
   * direct read, the answer is a promise already settled with the mapped value: no executor, no promise chain
   * (each hop of which costs a getInfo request about a microsecond); where it has prepared reads, the lookup runs
   * as a named prepared statement. Database errors go through `guard` either way. `rows`: `first` for a lookup that
   * returns at most one row, which a direct read then stops at (its rows are the same).
   */
  lookup<R, T>(
    db: Kysely<Database>,
    name: string,
    build: (...args: never[]) => Compilable<R>,
    args: readonly unknown[],
    guard: Guard,
    map: (rows: R[]) => T,
    fast: FastPaths = {},
    rows: LookupRows = 'all',
  ): Promise<T> {
    const query = this.#query(name, build, args)
    const { direct, prepared } = fast
    if (direct !== undefined) {
      let result: QueryResult<unknown> | undefined
      try {
        result = direct(query, rows === 'first')
      } catch (err) {
        return guard(Promise.reject(err))
      }
      if (result !== undefined) return Promise.resolve(map(result.rows as R[]))
    }
    if (prepared !== undefined) return guard(prepared(name, query)).then((r) => map(r.rows as R[]))
    return guard(db.executeQuery<R>(query)).then((r) => map(r.rows))
  }

  /**
   * Runs the write `name` with `args`: as a named prepared statement, or in the adapter's group commit, where the
   * adapter has them.
   */
  run<R>(
    db: Kysely<Database>,
    name: string,
    build: (...args: never[]) => Compilable<R>,
    args: readonly unknown[],
    fast: Pick<FastPaths, 'prepared' | 'batchedWrite'> = {},
  ): Promise<QueryResult<R>> {
    const query = this.#query(name, build, args)
    if (fast.prepared !== undefined) return fast.prepared(name, query) as Promise<QueryResult<R>>
    if (fast.batchedWrite !== undefined) return fast.batchedWrite(query) as Promise<QueryResult<R>>
    return db.executeQuery<R>(query)
  }

  /** The compiled query of `name` with `args` in place of its sentinels. */
  #query<R>(name: string, build: (...args: never[]) => Compilable<R>, args: readonly unknown[]): CompiledQuery<R> {
    let entry = this.#entries.get(name)
    if (entry === undefined) {
      const sentinels = args.map((_, i) => `\u0000${name}:${i}\u0000`)
      const compiled = (build as (...a: unknown[]) => Compilable<R>)(...sentinels).compile()
      entry = { compiled, slots: compiled.parameters.map((p) => sentinels.indexOf(p as string)) }
      this.#entries.set(name, entry)
    }
    const { compiled, slots } = entry
    const parameters = compiled.parameters.map((p, k) => {
      const slot = slots[k] ?? -1
      return slot >= 0 ? args[slot] : p
    })
    return { ...(compiled as CompiledQuery<R>), parameters }
  }
}
