/**
 * The embedded SQLite store (the default deployment): one better-sqlite3 connection in WAL mode, one writer.
 * Queries and migrations are shared with PostgreSQL (kysely-store.ts); this file opens the database and says
 * which SQLite errors mean "unavailable".
 */
import { mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely } from 'kysely'
import type { Store } from '../../../ports/store.js'
import { StoreUnavailableError } from '../../../ports/store.js'
import { createKyselyStore } from '../kysely-store.js'
import type { Database } from '../schema.js'
import { Checkpointer } from './checkpointer.js'
import { BetterSqliteDialect, type SqliteReaders } from './dialect.js'
import { translateUnavailable } from '../unavailable.js'

export interface SqliteStoreOptions {
  /** A file path (its directory is created if missing) or `:memory:`. */
  readonly path: string
  /** `full`: an acknowledged commit survives power loss; `normal`: it may be lost, the database stays intact. */
  readonly synchronous: 'full' | 'normal'
  /** How long a write waits for another process's lock before failing as unavailable; default 5000 ms. */
  readonly busyTimeoutMs?: number
}

/** SQLite's default automatic checkpoint, put back should the checkpoint thread fail. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000
/** The writer's own checkpoint beside the thread: ten times SQLite's default (≈ 40 MB of WAL), never reached while
 * the thread keeps up. */
const BACKSTOP_CHECKPOINT_PAGES = 10 * SQLITE_AUTOCHECKPOINT_PAGES

/** A readiness probe waits at most this long for the write lock (probes have short timeouts of their own). */
const PROBE_MAX_WAIT_MS = 1000

// Result codes (primary and extended, e.g. SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED) of a database that
// cannot be opened, written or locked right now: the request may succeed later, so 503 rather than 500.
const UNAVAILABLE_CODES = ['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_BUSY', 'SQLITE_IOERR', 'SQLITE_FULL']
const UNAVAILABLE_MESSAGES = ['database is locked', 'The database connection is not open']

export function isSqliteUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && UNAVAILABLE_CODES.some((c) => code === c || code.startsWith(`${c}_`))) return true
  return UNAVAILABLE_MESSAGES.some((m) => err.message.includes(m))
}

export async function openSqliteStore(opts: SqliteStoreOptions): Promise<Store> {
  const busyTimeoutMs = opts.busyTimeoutMs ?? 5000
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0)
    throw new RangeError(`busyTimeoutMs: not a duration: ${busyTimeoutMs}`)
  const inMemory = opts.path === ':memory:'
  if (!inMemory) {
    try {
      mkdirSync(dirname(opts.path), { recursive: true })
    } catch (err) {
      throw new StoreUnavailableError(`cannot create the directory of the SQLite database ${opts.path}`, { cause: err })
    }
  }

  let raw: BetterSqlite3.Database | undefined
  try {
    raw = new BetterSqlite3(opts.path, { timeout: busyTimeoutMs })
    raw.pragma(`busy_timeout = ${busyTimeoutMs}`)
    // WAL: readers never wait for the writer and a commit is one append; not applicable to :memory:
    if (!inMemory) raw.pragma('journal_mode = WAL')
    raw.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
    raw.pragma('foreign_keys = ON')
    // ANALYZE (store.optimize) samples this many rows of each index instead of reading all of them
    raw.pragma('analysis_limit = 1000')
    // From here on, lock waits happen on timers in the driver (lock-wait.ts), not inside SQLite's calls,
    // which would block the event loop. Opening above may still wait: nothing is served before it is done.
    raw.pragma('busy_timeout = 0')
  } catch (err) {
    raw?.close()
    throw translateUnavailable(err, isSqliteUnavailable)
  }

  // Committed-data reads on read-only connections of their own (WAL), so they never see an unacknowledged batch:
  // one for reads outside transactions, one for the hot lookups answered synchronously (hot-reads.ts).
  let readers: SqliteReaders | undefined
  if (!inMemory) {
    const openReader = (): BetterSqlite3.Database => {
      const reader = new BetterSqlite3(opts.path, { readonly: true, timeout: busyTimeoutMs })
      try {
        reader.pragma('busy_timeout = 0') // as the writer's: waits happen in the driver
      } catch (err) {
        reader.close()
        throw err
      }
      return reader
    }
    let committed: BetterSqlite3.Database | undefined
    try {
      committed = openReader()
      readers = { committed, hot: openReader() }
    } catch (err) {
      committed?.close()
      raw.close()
      throw translateUnavailable(err, isSqliteUnavailable)
    }
  }

  const dialect = new BetterSqliteDialect(raw, readers, {
    busyTimeoutMs,
    ...(inMemory ? {} : { stillAtPath: sameFileAt(opts.path), checkpointer: checkpointOffTheLoop(raw, opts) }),
  })
  const db = new Kysely<Database>({ dialect })
  return createKyselyStore(db, {
    dialect: 'sqlite',
    isUnavailable: isSqliteUnavailable,
    // readiness includes the write path: another process holding the write lock leaves reads working
    probe: () => dialect.probeWrite(Math.min(busyTimeoutMs, PROBE_MAX_WAIT_MS)),
    directRead: (query, firstRow) => dialect.readNow(query, firstRow),
    // A new invoice's insert joins the group commit on its own, without a savepoint or Kysely's transaction around it
    batchedWrite: (query) => dialect.writeInBatch(query),
    standaloneInserts: true,
  })
}

/**
 * The writer's automatic checkpoints handed to a thread of their own (checkpointer.ts): the WAL is copied back into
 * the database file beside the event loop instead of inside every ≈ 27th COMMIT under load. (bench/floor-server.mjs
 * sets its writer up with it too.)
 */
export function checkpointOffTheLoop(
  writer: BetterSqlite3.Database,
  opts: Pick<SqliteStoreOptions, 'path' | 'synchronous'>,
): Checkpointer {
  // a backstop, not the way: should the thread fall far behind (a machine short of CPU), the writer's own
  // checkpoint copies back what is left once the WAL passes this many pages, so it stays bounded whatever happens
  writer.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`)
  return new Checkpointer({
    path: opts.path,
    synchronous: opts.synchronous === 'full' ? 'FULL' : 'NORMAL',
    fallBack: () => {
      if (writer.open) writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`)
    },
  })
}

/**
 * Whether `path` still names the file it names now (same device and inode): false once it is removed, renamed away
 * or replaced (a backup restored over it while the service runs). One `stat` before each COMMIT. A path
 * that cannot be looked at (EACCES, EIO, ESTALE) counts as not the file: that batch is refused (503), not committed
 * to what may no longer be the database.
 */
function sameFileAt(path: string): () => boolean {
  const opened = statSync(path, { bigint: true })
  return () => {
    try {
      const now = statSync(path, { bigint: true, throwIfNoEntry: false })
      return now !== undefined && now.ino === opened.ino && now.dev === opened.dev
    } catch {
      return false
    }
  }
}
