/**
 * The hot lookups answered synchronously (driver.ts `readNow`): reads outside any transaction on a read-only
 * connection of their own, the same committed data Kysely's path reads, without its executor and its promise chain
 * around them (≈ 10 % of a getInfo request's CPU).
 *
 * The reads of one event-loop pass share one read snapshot (a transaction on the hot connection, opened by the
 * first of them): a statement run on its own takes and drops SQLite's locks each time (two `fcntl` calls and a
 * `stat` of the WAL, about half of a lookup's cost; bench/history/changes.json). The snapshot never outlives what this process acknowledges: the
 * driver ends it before every COMMIT of the writer (so a read after an acknowledged write sees it), and it ends at
 * the end of the pass (a `setImmediate`), so it is never more than one pass old. Ending it before the COMMIT also
 * leaves the COMMIT's checkpoint free to copy the whole WAL back, so the WAL file is reused instead of growing.
 * Only this process writes invoices, the one thing these lookups read; the CLI beside it writes merchants and keys.
 */
import type { CompiledQuery, QueryResult } from 'kysely'
import { isSqliteBusy } from './lock-wait.js'
import { BEGIN, COMMIT, ROLLBACK, type StatementCache } from './statements.js'

export class HotReads {
  #snapshot = false
  constructor(readonly connection: StatementCache) {}

  /**
   * A read in the pass's snapshot; undefined when the database is busy (another process in exclusive locking mode).
   * `firstRow`: the query returns at most one row, read with `get` (no array of rows, no step past it).
   */
  read<R>(compiled: CompiledQuery, firstRow: boolean): QueryResult<R> | undefined {
    const hot = this.connection
    try {
      if (!this.#snapshot) {
        hot.run(BEGIN) // deferred: the snapshot is taken by the first read in it
        this.#snapshot = true
        setImmediate(this.end)
      }
      return firstRow ? hot.first<R>(compiled) : hot.run<R>(compiled)
    } catch (err) {
      if (isSqliteBusy(err)) {
        this.end()
        return undefined
      }
      throw err
    }
  }

  /** Ends the read snapshot, if one is held; the next read takes a fresh one. */
  readonly end = (): void => {
    if (!this.#snapshot) return
    this.#snapshot = false
    const hot = this.connection
    if (!hot.db.open || !hot.db.inTransaction) return
    try {
      hot.run(COMMIT)
    } catch {
      // a read transaction has nothing to keep: if it cannot be committed, it is rolled back
      if (hot.db.inTransaction) hot.run(ROLLBACK)
    }
  }
}
