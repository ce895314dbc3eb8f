/**
 * A Kysely dialect over better-sqlite3 with GROUP COMMIT. Kysely's own SqliteDriver is replaced because:
 * - it prepares every statement anew, which costs far more than running a cached one (bench/history/changes.json);
 * - it opens transactions with a deferred BEGIN, which fails at once with SQLITE_BUSY_SNAPSHOT when another
 *   process (the CLI beside the server) wrote meanwhile; BEGIN IMMEDIATE waits for the lock like any write;
 * - a durable commit (synchronous=FULL: an fsync) costs ~0.4 ms, which caps one-transaction-per-request
 *   writes near 2.4k/s. Here the transactions that arrive in one event-loop turn share ONE SQLite transaction:
 *   each runs inside its own SAVEPOINT (a failing one is rolled back alone), and none is acknowledged — its
 *   `commitTransaction` does not resolve — until the shared COMMIT has returned. One fsync covers the batch.
 *   A single statement (a new invoice's insert) joins the batch without a savepoint (`writeInBatch`).
 *
 * Reads outside transactions go to a second, read-only connection when the database is a file: in WAL mode it
 * sees only committed data, so nobody reads a write that has not been made durable yet, and reads never wait
 * behind a batch. (`:memory:` cannot be shared between connections; there, reads use the writer.) The hot
 * lookups answered synchronously (`readNow`) have a third, read-only connection whose read snapshot is shared by
 * every such read of one event-loop pass (see `readNow`).
 *
 * Both connections run with busy_timeout = 0: a lock held by another process is waited for on timers
 * (lock-wait.ts), never inside a synchronous call that would freeze the event loop.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely'
import { StoreUnavailableError } from '../../../ports/store.js'
import type { Checkpointer } from './checkpointer.js'
import { HotReads } from './hot-reads.js'
import { LockWait, Mutex } from './lock-wait.js'
import { COMMIT, ROLLBACK, StatementCache } from './statements.js'

/** The read-only connections of a file database: `committed` for reads outside transactions, `hot` for `readNow`. */
export interface SqliteReaders {
  readonly committed: BetterSqlite3.Database
  readonly hot: BetterSqlite3.Database
}

export interface LockWaitOptions {
  /** How long a statement waits for a lock another process holds before it fails with SQLITE_BUSY. */
  readonly busyTimeoutMs: number
  /**
   * Whether the database file at its path is still the one the connections opened (a file database only). Checked
   * before each COMMIT (one `stat` a batch): writes to a file removed or replaced meanwhile would be
   * acknowledged and then not be there at the next start.
   */
  readonly stillAtPath?: () => boolean
  /** Checkpoints the WAL off the event loop (a file database only): told of every COMMIT, stopped at close. */
  readonly checkpointer?: Checkpointer
}

/** The database file was removed or replaced under the running service: nothing more is written (503, not ready). */
function fileGone(): StoreUnavailableError {
  return new StoreUnavailableError(
    'the SQLite database file was removed or replaced while the service ran; restart it on the right file',
  )
}

/**
 * What the members of a batch that SQLite did not commit are answered: their own statements went through, the batch
 * was lost (a COMMIT that failed, or a statement of another member after which SQLite rolled the whole transaction
 * back: SQLITE_FULL, IOERR, NOMEM mid-statement). Unavailable (503, retry), whatever the cause's own code: the
 * cause may be another member's error that says nothing about theirs.
 */
function batchLost(cause: unknown): StoreUnavailableError {
  const why = cause instanceof Error ? `: ${cause.message}` : ''
  return new StoreUnavailableError(`the batch transaction was rolled back by SQLite${why}`, { cause })
}

interface Waiter {
  resolve(): void
  reject(err: unknown): void
}

export class GroupCommitDriver implements Driver {
  readonly #writer: StatementCache
  readonly #reader: StatementCache | undefined
  /** The connection of `readNow` and its per-pass read snapshot (hot-reads.ts). */
  readonly #hot: HotReads | undefined
  // One writer connection: transactions take turns on it, first come first served.
  readonly #mutex = new Mutex()
  /** Transactions released into the open batch, waiting for its COMMIT. */
  #waiting: Waiter[] = []
  #flushScheduled = false
  /** Waits for the write lock (BEGIN IMMEDIATE, writes outside transactions); remembers when it was lost. */
  readonly #writeLock: LockWait
  /** Waits of reads on the reader connection (only another process in exclusive locking mode blocks them). */
  readonly #readLock: LockWait
  /** Set while a transaction holds the turn waiting for the write lock (readiness: another process has it). */
  #lockWaitSince: number | undefined
  readonly #stillAtPath: () => boolean
  readonly #checkpointer: Checkpointer | undefined

  constructor(writer: BetterSqlite3.Database, readers: SqliteReaders | undefined, opts: LockWaitOptions) {
    this.#writer = new StatementCache(writer)
    this.#reader = readers && new StatementCache(readers.committed)
    this.#hot = readers && new HotReads(new StatementCache(readers.hot))
    this.#writeLock = new LockWait(opts.busyTimeoutMs)
    this.#readLock = new LockWait(opts.busyTimeoutMs)
    this.#stillAtPath = opts.stillAtPath ?? (() => true)
    this.#checkpointer = opts.checkpointer
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Handle(this)
  }

  /** Opens the batch if none is open (BEGIN IMMEDIATE, waiting for the lock on timers); call holding the turn. */
  async #joinBatch(): Promise<void> {
    if (this.#writer.db.inTransaction) return
    // holding the turn while waiting: the transactions queued behind this one would wait for the same lock
    this.#lockWaitSince = performance.now()
    try {
      await this.#writeLock.run(() => this.#writer.run(CompiledQuery.raw('begin immediate')))
    } finally {
      this.#lockWaitSince = undefined
    }
    this.#scheduleFlush()
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle
    await this.#mutex.lock()
    try {
      await this.#joinBatch()
      this.#writer.run(CompiledQuery.raw('savepoint request'))
      handle.inTransaction = true
    } catch (err) {
      this.#mutex.unlock()
      throw err
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle
    const db = this.#writer.db
    try {
      if (!db.inTransaction) throw batchLost(undefined)
      this.#writer.run(CompiledQuery.raw('release request'))
    } catch (err) {
      this.#abortBatch(err)
      throw err
    } finally {
      // the savepoint is closed either way: the next transaction may use the connection meanwhile
      handle.inTransaction = false
      this.#mutex.unlock()
    }
    await this.#untilCommitted()
  }

  /** Resolves once the open batch's COMMIT is durable: none of its members is acknowledged before. */
  #untilCommitted(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.#waiting.push({ resolve, reject }))
  }

  /**
   * One statement outside any transaction, run in the open batch and acknowledged with its COMMIT, like a
   * transaction of its own but without a savepoint or Kysely's transaction around it (the insert of a new invoice:
   * Store.insertInvoice). A statement that fails is undone by SQLite alone, leaving the batch as it was; one that
   * made SQLite roll the whole batch back (SQLITE_FULL, IOERR…) fails the batch's other members too, as in
   * `rollbackTransaction`.
   */
  async writeInBatch<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    await this.#mutex.lock()
    let result: QueryResult<R>
    try {
      await this.#joinBatch()
      try {
        result = this.#writer.run<R>(compiled)
      } catch (err) {
        if (!this.#writer.db.inTransaction) this.#abortBatch(err)
        throw err
      }
    } finally {
      this.#mutex.unlock()
    }
    await this.#untilCommitted()
    return result
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle
    if (!handle.inTransaction) return // after a failed commit: nothing of ours is left open
    handle.inTransaction = false
    try {
      const db = this.#writer.db
      if (db.open && db.inTransaction) {
        try {
          this.#writer.run(CompiledQuery.raw('rollback to request'))
          this.#writer.run(CompiledQuery.raw('release request'))
        } catch (err) {
          // the savepoint could not be undone: its writes must not ride along with the batch's COMMIT
          this.#abortBatch(err)
        }
      } else {
        // SQLite rolled the whole batch back itself (SQLITE_FULL, IOERR, BUSY…): earlier members are lost too.
        this.#abortBatch(undefined)
      }
    } finally {
      this.#mutex.unlock()
    }
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.#flush()
    this.#endSnapshot()
    await this.#checkpointer?.stop()
    this.#hot?.connection.db.close()
    this.#reader?.db.close()
    this.#writer.db.close()
  }

  /** A query outside any transaction. */
  async query<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // `readonly`, not `reader`: better-sqlite3 calls some schema changes (ALTER TABLE … ADD COLUMN) readers.
    const reader = this.#reader
    if (reader !== undefined && this.#writer.prepare(compiled.sql).stmt.readonly)
      return this.#readLock.run(() => reader.run<R>(compiled))
    // A write (migrations) or a read of an in-memory database: wait for the turn; a write lands after the batch.
    await this.#mutex.lock()
    try {
      if (this.#writer.prepare(compiled.sql).stmt.readonly) return this.#writer.run<R>(compiled)
      this.#commitBatch()
      this.#endSnapshot() // this write commits on its own, and readNow must see it from now on
      if (!this.#stillAtPath()) throw fileGone()
      // an autocommit statement that failed with SQLITE_BUSY did nothing: trying it again is safe
      const result = await this.#writeLock.run(() => this.#writer.run<R>(compiled))
      this.#checkpointer?.committed()
      return result
    } finally {
      this.#mutex.unlock()
    }
  }

  /**
   * A read outside any transaction, answered synchronously on the hot read-only connection in the pass's read
   * snapshot (hot-reads.ts). Undefined when the query has to take `query`'s path: no read-only connection
   * (`:memory:`), not a read, or the database busy (another process in exclusive locking mode; `query` waits for it
   * on timers). `firstRow`: the query returns at most one row, and the read stops at it.
   */
  readNow<R>(compiled: CompiledQuery, firstRow: boolean): QueryResult<R> | undefined {
    const hot = this.#hot
    if (hot === undefined || this.#readLock.lost || !this.#writer.prepare(compiled.sql).stmt.readonly) return undefined
    return hot.read<R>(compiled, firstRow)
  }

  /** Ends the hot connection's read snapshot, if it holds one (before a COMMIT: reads after it must see it). */
  #endSnapshot(): void {
    this.#hot?.end()
  }

  async probeWrite(maxWaitMs: number): Promise<void> {
    if (!this.#stillAtPath()) throw fileGone()
    const started = performance.now()
    if (!(await this.#mutex.lockWithin(maxWaitMs))) {
      // The turn stayed taken. By a transaction waiting for the lock: not ready. By our own busy writes: ready.
      if (this.#lockWaitSince !== undefined) {
        throw Object.assign(new Error('database is locked: writes have been waiting for the lock'), {
          code: 'SQLITE_BUSY',
        })
      }
      return
    }
    try {
      const left = Math.max(0, maxWaitMs - (performance.now() - started))
      if (this.#writer.db.inTransaction) return // our own batch holds the write lock: writes are going through
      await this.#writeLock.run(() => this.#writer.run(CompiledQuery.raw('begin immediate')), left)
      this.#writer.run(ROLLBACK)
    } finally {
      this.#mutex.unlock()
    }
  }

  /** A query inside the caller's transaction (it holds the turn). */
  inTransaction<R>(compiled: CompiledQuery): QueryResult<R> {
    return this.#writer.run<R>(compiled)
  }

  streamFrom(compiled: CompiledQuery): Iterable<unknown> {
    // a fresh statement: a cached one could be re-entered while this iteration is still open
    const db = this.#reader?.db ?? this.#writer.db
    return db.prepare<unknown[]>(compiled.sql).iterate(compiled.parameters as unknown[])
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return
    this.#flushScheduled = true
    // After this turn's callbacks: every transaction that started in it has joined the batch by then.
    setImmediate(() => {
      this.#flushScheduled = false
      void this.#flush()
    })
  }

  async #flush(): Promise<void> {
    await this.#mutex.lock()
    try {
      this.#commitBatch()
      // between two batches: the checkpoint thread may take the writer's turn to start the WAL over
      const handedOver = this.#checkpointer?.handOverIfAsked()
      if (handedOver !== undefined) await handedOver
    } finally {
      this.#mutex.unlock()
    }
  }

  /** COMMITs the open batch and answers its members; call holding the turn. */
  #commitBatch(): void {
    const db = this.#writer.db
    const waiting = this.#waiting
    this.#waiting = []
    if (!db.open || !db.inTransaction) {
      for (const w of waiting) w.reject(batchLost(undefined))
      return
    }
    // before the COMMIT, not after: from its return on, readNow must see the batch (and the COMMIT's checkpoint
    // is not held back by a snapshot of ours)
    this.#endSnapshot()
    try {
      if (!this.#stillAtPath()) throw fileGone()
      this.#writer.run(COMMIT)
    } catch (err) {
      this.#rollBackBatch()
      for (const w of waiting) w.reject(batchLost(err))
      return
    }
    this.#checkpointer?.committed()
    for (const w of waiting) w.resolve()
  }

  /** The batch is lost: fail everyone who was waiting for it and close what is left of it. */
  #abortBatch(cause: unknown): void {
    const waiting = this.#waiting
    this.#waiting = []
    for (const w of waiting) w.reject(batchLost(cause))
    this.#rollBackBatch()
  }

  /**
   * Rolls back what is left of the batch, if anything. Never throws: its callers have members to answer, and the
   * COMMIT's caller is a timer (an error escaping there would end the process). SQLite refuses a ROLLBACK only while
   * a statement of the connection is still being read, which this driver never leaves open on the writer.
   */
  #rollBackBatch(): void {
    const db = this.#writer.db
    try {
      if (db.open && db.inTransaction) this.#writer.run(ROLLBACK)
    } catch {
      // the members are answered as failed either way
    }
  }
}

/** What Kysely holds for one query or one transaction. */
class Handle implements DatabaseConnection {
  inTransaction = false
  constructor(private readonly driver: GroupCommitDriver) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return this.inTransaction ? this.driver.inTransaction<R>(compiled) : this.driver.query<R>(compiled)
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    for (const row of this.driver.streamFrom(compiled)) yield { rows: [row as R] }
  }
}
