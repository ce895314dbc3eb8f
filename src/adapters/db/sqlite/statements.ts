/**
 * Prepared statements of a better-sqlite3 connection, kept by SQL text, and the row objects they return
 * (driver.ts's connections each have one cache).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type QueryResult } from 'kysely'

const STATEMENT_CACHE_SIZE = 256

export const BEGIN = CompiledQuery.raw('begin')
export const COMMIT = CompiledQuery.raw('commit')
export const ROLLBACK = CompiledQuery.raw('rollback')

/** A prepared statement and, for one that returns rows, the function that turns its raw rows into objects. */
export interface Prepared {
  readonly stmt: BetterSqlite3.Statement<unknown[]>
  readonly toObject: ((row: unknown[]) => Record<string, unknown>) | undefined
}

/**
 * Prepared statements of one connection, kept by SQL text.
 *
 * Row-returning statements run in better-sqlite3's raw mode (each row an array) and are turned into objects by
 * a function compiled once per statement from its column names: better-sqlite3 builds each row object property
 * by property in C++, through V8's slow path (a hidden-class transition per column; bench/history/changes.json),
 * where an object literal of a fixed shape costs a fraction of that.
 */
export class StatementCache {
  readonly #statements = new Map<string, Prepared>()
  constructor(readonly db: BetterSqlite3.Database) {}

  run<R>(compiled: CompiledQuery): QueryResult<R> {
    const { stmt, toObject } = this.prepare(compiled.sql)
    const params = compiled.parameters as unknown[]
    if (toObject !== undefined) return { rows: (stmt.all(params) as unknown[][]).map(toObject) as R[] }
    const { changes } = stmt.run(params)
    return { numAffectedRows: BigInt(changes), rows: [] }
  }

  /**
   * A query that returns at most one row (a key, a unique index, a limit of 1), run with `get`: the same rows as
   * `run`, without the array `all` builds and the step after the row (bench/history/changes.json, "getInfo's own
   * steps trimmed").
   */
  first<R>(compiled: CompiledQuery): QueryResult<R> {
    const { stmt, toObject } = this.prepare(compiled.sql)
    if (toObject === undefined) throw new TypeError('not a query that returns rows')
    const row = stmt.get(compiled.parameters as unknown[]) as unknown[] | undefined
    return { rows: (row === undefined ? [] : [toObject(row)]) as R[] }
  }

  prepare(text: string): Prepared {
    let prepared = this.#statements.get(text)
    if (prepared === undefined) {
      const stmt = this.db.prepare<unknown[]>(text)
      prepared = {
        stmt,
        toObject: stmt.reader
          ? rowMaker(
              stmt
                .raw(true)
                .columns()
                .map((c) => c.name),
            )
          : undefined,
      }
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.#statements.keys().next()
        if (oldest.done !== true) this.#statements.delete(oldest.value)
      }
      this.#statements.set(text, prepared)
    }
    return prepared
  }
}

/**
 * `(row) => ({ "a": row[0], "b": row[1], … })` for these column names. The names come from SQLite's description
 * of our own statements and are written as JSON string literals, so no name can be read as code. A repeated name
 * keeps its last value, as better-sqlite3's own row objects do.
 */
export function rowMaker(columns: readonly string[]): (row: unknown[]) => Record<string, unknown> {
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: row[${i}]`).join(', ')
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function('row', `return { ${fields} }`) as (row: unknown[]) => Record<string, unknown>
}
