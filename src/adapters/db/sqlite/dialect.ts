/**
 * The Kysely dialect of the embedded SQLite store: SQLite's own compiler and introspector, migrations in one
 * transaction, and the group-commit driver of driver.ts (whose header says why Kysely's driver is replaced).
 */
import type BetterSqlite3 from 'better-sqlite3'
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely'
import { GroupCommitDriver, type LockWaitOptions, type SqliteReaders } from './driver.js'

export type { SqliteReaders } from './driver.js'

export class BetterSqliteDialect implements Dialect {
  #driver: GroupCommitDriver | undefined

  constructor(
    private readonly writer: BetterSqlite3.Database,
    private readonly readers: SqliteReaders | undefined,
    private readonly opts: LockWaitOptions,
  ) {}

  createDriver(): Driver {
    this.#driver = new GroupCommitDriver(this.writer, this.readers, this.opts)
    return this.#driver
  }

  /** The driver's `readNow` (a read answered at once on the read-only connection), once Kysely has made it. */
  readNow(compiled: CompiledQuery, firstRow: boolean): QueryResult<unknown> | undefined {
    return this.#driver?.readNow(compiled, firstRow)
  }

  /** The driver's `writeInBatch` (one statement in the open group-commit batch), once Kysely has made it. */
  writeInBatch(compiled: CompiledQuery): Promise<QueryResult<unknown>> {
    if (this.#driver === undefined) return Promise.reject(new Error('The database connection is not open'))
    return this.#driver.writeInBatch(compiled)
  }

  /**
   * Readiness of the write path: resolves when the write lock can be taken now (waiting at most `maxWaitMs`), or
   * is held by this process's own open batch; rejects with SQLite's error otherwise. A read-only `select 1`
   * cannot tell: in WAL mode reads go on while another process holds the write lock and every write fails.
   */
  probeWrite(maxWaitMs: number): Promise<void> {
    if (this.#driver === undefined) return Promise.reject(new Error('The database connection is not open'))
    return this.#driver.probeWrite(maxWaitMs)
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler()
  }
  createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter()
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db)
  }
}

/**
 * SQLite's adapter with migrations in one transaction: SQLite's DDL is transactional, and this driver's transactions
 * take the write lock at their BEGIN IMMEDIATE, so what is applied is read and migrated under that lock. Kysely's
 * own adapter ran each statement committed alone and took no lock: a `migrate` killed halfway left tables without
 * their migration recorded ("table merchants already exists" at every later start), and processes migrating a
 * fresh file at once failed the same way.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true
  }
}
