/**
 * The PostgreSQL store (docs/scaling.md#coordinated-through-the-database: any number of instances over one database). Queries, repositories and
 * migrations are shared with SQLite (kysely-store.ts); this file opens the pool, teaches it to read int8 as a JS
 * number and says which PostgreSQL errors mean "unavailable".
 *
 * Isolation stays at PostgreSQL's default, READ COMMITTED: every write that races is one statement that the
 * database settles by itself — the insert's ON CONFLICT on the partial unique index, compare-and-set updates on
 * status — and each statement reads the latest committed rows (create-invoice reads the live invoice right after
 * its insert lost, which REPEATABLE READ would hide).
 */
import { Kysely, sql, type CompiledQuery, type QueryResult } from 'kysely'
import { Pool, types, type CustomTypesConfig, type QueryResult as PgResult } from 'pg'
import type { Store } from '../../../ports/store.js'
import { createKyselyStore } from '../kysely-store.js'
import { CurrentSchemaPostgresDialect } from './introspector.js'
import type { PreparedQuery } from '../query-cache.js'
import type { Database } from '../schema.js'

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database?…`; `options=-c search_path=…` selects a schema. */
  readonly url: string
  /** Connections this instance opens at most (DATABASE_POOL_SIZE). */
  readonly poolSize: number
  /** How long a query waits to connect or for a free pooled connection before failing as unavailable; default 5000 ms. */
  readonly connectTimeoutMs?: number
  /** Told about connections the server dropped (restart, failover, idle kill); the pool replaces them by itself. */
  readonly onConnectionError?: (err: Error) => void
  /** Told once if the hot statements had to stop using prepared statements (see createPreparedQuery). */
  readonly onPreparedStatementsOff?: (err: Error) => void
}

const INT8_OID = 20

/**
 * Times (epoch ms) and amounts (minor units) are BIGINT columns; pg returns int8 as text unless told otherwise.
 * Every value we store is a safe integer (domain/money.ts MAX_MINOR, dates), so a number is exact; anything
 * larger fails the query loudly instead of losing precision. Per pool, not pg's process-wide `types` registry.
 */
export function parseInt8(text: string): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} does not fit a JavaScript number exactly`)
  return n
}

const TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? parseInt8
      : types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
}

// Socket-level failures of reaching the server (Node's codes; an AggregateError of several addresses carries one too).
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
// SQLSTATEs of a server that is going away, starting, out of room or read-only (a standby after failover):
// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 25006 read_only_sql_transaction.
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '25006'])
// Class 08 connection exception; class 53 insufficient resources (53300 too_many_connections, 53100 disk_full …).
const SERVER_CLASSES = /^(08|53)[0-9A-Z]{3}$/
// pg's and pg-pool's own errors, which carry no code.
const MESSAGES = [
  'Connection terminated', // "… unexpectedly", "… due to connection timeout"
  'timeout exceeded when trying to connect', // no pooled connection became free within connectionTimeoutMillis
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
]

/** True for errors that mean the server cannot be reached or cannot take the work right now (503, not 500). */
export function isPostgresUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || SERVER_CLASSES.test(code)))
    return true
  return MESSAGES.some((m) => err.message.startsWith(m))
}

// 26000 invalid_sql_statement_name ("prepared statement … does not exist"), 42P05 duplicate_prepared_statement:
// the server's prepared statements are not the ones the client prepared on that connection. 0A000 with this
// message: a migration changed a prepared statement's result columns under it.
const LOST_STATEMENT_CODES = new Set(['26000', '42P05'])
const STALE_PLAN = 'cached plan must not change result type'
const lostStatement = (err: unknown): err is Error =>
  err instanceof Error &&
  (LOST_STATEMENT_CODES.has(String((err as { code?: unknown }).code)) || err.message.includes(STALE_PLAN))

const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE'])

/** pg's result as Kysely's: the rows, and for a write how many rows it changed. */
function answer({ rows, rowCount, command }: PgResult): QueryResult<unknown> {
  return WRITES.has(command) && rowCount !== null ? { rows, numAffectedRows: BigInt(rowCount) } : { rows }
}

/**
 * The hot statements outside transactions (the lookups of an invoice by id and by order_id, the insert of a new
 * one) as named prepared statements: PostgreSQL parses and plans each once per connection instead of on every
 * call, for clearly more getInfo requests and creates a second (bench/history/changes.json).
 *
 * A connection pooler that hands one client connection several server connections in turn (PgBouncer in
 * transaction mode before 1.21, or without `max_prepared_statements`) loses them between calls: the first such
 * error turns prepared statements off for this process (`onOff` is told, once), the statement is run again as an
 * ordinary query, and every later one is too. So does a migration that changes a prepared lookup's columns while
 * the instance runs. Running it again is safe for the insert too: each of these errors comes before the statement
 * executes, in its Parse or its Bind (where a cached plan is checked).
 */
export function createPreparedQuery(pool: Pool, onOff: (err: Error) => void): PreparedQuery {
  let prepared = true
  return async (name: string, query: CompiledQuery): Promise<QueryResult<unknown>> => {
    const values = query.parameters as unknown[]
    if (prepared) {
      try {
        return answer(await pool.query({ name, text: query.sql, values }))
      } catch (err) {
        if (!lostStatement(err)) throw err
        // another statement in flight meanwhile may have turned them off already: tell once
        if (prepared) {
          prepared = false
          onOff(err)
        }
      }
    }
    return answer(await pool.query(query.sql, values))
  }
}

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<Store> {
  if (!Number.isSafeInteger(opts.poolSize) || opts.poolSize < 1)
    throw new RangeError(`poolSize: not a pool size: ${opts.poolSize}`)
  const connectTimeoutMs = opts.connectTimeoutMs ?? 5000
  const onConnectionError = opts.onConnectionError ?? (() => {})
  const pool = new Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    // idle pooled connections do not keep the process alive: a CLI command whose start failed still exits
    allowExitOnIdle: true,
    application_name: 'invoice-service',
    types: TYPES,
  })
  // A connection the server drops emits 'error': on the pool while idle, on the client while checked out.
  // Unheard, either would crash the process; the failed query itself already rejects, and a broken client is
  // discarded when released, so listening is all that is needed.
  pool.on('error', onConnectionError)
  pool.on('connect', (client) => client.on('error', onConnectionError))

  // Nothing connects yet: the first query does, so a store opens (and /readyz can answer 503) while the server is down.
  const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) })
  return createKyselyStore(db, {
    dialect: 'postgres',
    isUnavailable: isPostgresUnavailable,
    preparedQuery: createPreparedQuery(pool, opts.onPreparedStatementsOff ?? (() => {})),
    batchedReads: true,
    // a new invoice is one INSERT: committed by itself, it is one round trip instead of three
    standaloneInserts: true,
    // Kysely's migration tables go where ours do: the first schema of the search_path. Left unnamed, Kysely looks
    // for them in every schema and would take another schema's (another app's, another test's) as ours; the
    // introspector it asks is narrowed to that schema too (introspector.ts).
    migrationTableSchema: async (conn) => {
      const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(conn)
      const schema = rows[0]?.schema
      if (schema == null) throw new Error('PostgreSQL: no schema of the search_path exists to create the tables in')
      return schema
    },
  })
}
