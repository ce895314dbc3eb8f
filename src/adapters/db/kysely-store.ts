/**
 * The Store port over a Kysely instance: everything but opening the database is shared by the SQLite adapter
 * (sqlite/) and the PostgreSQL one (postgres/); each supplies its dialect and its "database unavailable" classifier.
 */
import { Migrator, sql, type Kysely } from 'kysely'
import type { Invoice } from '../../domain/invoice.js'
import type { Store, Tx } from '../../ports/store.js'
import { KyselyApiKeyRepo, KyselyMerchantRepo, KyselyWebhookSecretRepo } from './repositories/account-repos.js'
import { KyselyAdminTokenRepo } from './repositories/admin-token-repo.js'
import { KyselyConsoleReader } from './repositories/console-reads.js'
import {
  KyselyRecoveryCodeRepo,
  KyselySessionRepo,
  KyselySignInThrottleRepo,
  KyselyUserLinkRepo,
  KyselyUserRepo,
} from './repositories/user-repos.js'
import { KyselyAttemptRepo } from './repositories/attempt-repo.js'
import { KyselyDeliveryRepo } from './repositories/delivery-repo.js'
import { KyselyEvmRepo } from './repositories/evm-repo.js'
import { KyselyRefundRepo } from './repositories/refund-repo.js'
import {
  flushTotals,
  immediateTotals,
  KyselyDailyTotalsRepo,
  TotalsBuffer,
  type TotalsSink,
} from './repositories/daily-totals-repo.js'
import { KyselyEventRepo, KyselyInvoiceRepo } from './repositories/invoice-repo.js'
import { appliedMigrations, migrationProvider } from './migrations/index.js'
import { QueryCache, type BatchedWrite, type DirectRead, type FastPaths, type PreparedQuery } from './query-cache.js'
import type { Database, SqlDialect } from './schema.js'
import { createGuard, translateUnavailable, type Guard } from './unavailable.js'

export interface KyselyStoreOptions {
  readonly dialect: SqlDialect
  /** True for errors that mean the database cannot be reached or written; they become StoreUnavailableError. */
  readonly isUnavailable: (err: unknown) => boolean
  /** The schema of Kysely's own migration tables, asked for at each migrate(); undefined: Kysely's default. */
  readonly migrationTableSchema?: (db: Kysely<Database>) => Promise<string>
  /** A further readiness check after `select 1` (SQLite: can the write lock be taken?); rejects when not ready. */
  readonly probe?: () => Promise<void>
  /** Synchronous committed reads for the hot lookups outside transactions, where the adapter has them (SQLite). */
  readonly directRead?: DirectRead
  /** Named prepared statements for the same lookups and for `insertInvoice`, where the adapter has them (PostgreSQL). */
  readonly preparedQuery?: PreparedQuery
  /** `insertInvoice` run in the adapter's group commit, where it has one (SQLite). */
  readonly batchedWrite?: BatchedWrite
  /** Lookups by id or by order_id made in one pass of the event loop as one query, where each is a round trip (PostgreSQL). */
  readonly batchedReads?: boolean
  /**
   * True where the insert of a new invoice is cheaper as a statement of its own than as a transaction: the store
   * then has `insertInvoice`. PostgreSQL: the statement commits by itself in one round trip (not BEGIN, INSERT,
   * COMMIT). SQLite: with `batchedWrite` it joins the open group-commit batch without a savepoint.
   */
  readonly standaloneInserts?: boolean
}

function repos(
  db: Kysely<Database>,
  guard: Guard,
  dialect: SqlDialect,
  cache: QueryCache,
  totals: TotalsSink,
  fast?: FastPaths,
): Tx {
  return {
    invoices: new KyselyInvoiceRepo(db, guard, cache, fast, totals),
    events: new KyselyEventRepo(db, guard),
    merchants: new KyselyMerchantRepo(db, guard),
    apiKeys: new KyselyApiKeyRepo(db, guard),
    webhookSecrets: new KyselyWebhookSecretRepo(db, guard),
    deliveries: new KyselyDeliveryRepo(db, guard, dialect),
    attempts: new KyselyAttemptRepo(db, guard, dialect),
    evm: new KyselyEvmRepo(db, guard, dialect),
    adminTokens: new KyselyAdminTokenRepo(db, guard),
    users: new KyselyUserRepo(db, guard, dialect),
    userLinks: new KyselyUserLinkRepo(db, guard),
    recoveryCodes: new KyselyRecoveryCodeRepo(db, guard),
    sessions: new KyselySessionRepo(db, guard),
    signInThrottle: new KyselySignInThrottleRepo(db, guard),
    refunds: new KyselyRefundRepo(db, guard, dialect, totals),
    dailyTotals: new KyselyDailyTotalsRepo(db, guard),
  }
}

export function createKyselyStore(db: Kysely<Database>, opts: KyselyStoreOptions): Store {
  const guard = createGuard(opts.isUnavailable)
  const optimize = async (): Promise<void> => {
    // 0x10000: every table, not only those this connection has queried; 0x02: analyze where it is due. Each
    // index is sampled (analysis_limit, set at open), so this is milliseconds at a million invoices.
    if (opts.dialect === 'sqlite') await guard(sql`pragma optimize = 0x10002`.execute(db))
  }
  // The Store's readers run on the plain database, outside any transaction.
  // Compiled hot lookups, shared by the readers and every transaction's repos (the SQL is the same).
  const cache = new QueryCache()
  const top = repos(db, guard, opts.dialect, cache, immediateTotals(db, guard), {
    direct: opts.directRead,
    prepared: opts.preparedQuery,
    batchedWrite: opts.batchedWrite,
    batched: opts.batchedReads,
  })
  return {
    // The guard also covers begin/commit; errors thrown by `fn` itself pass through it unchanged.
    // The daily totals a transaction moved are written last, before its commit (docs/dashboard.md#daily-totals).
    transaction: (fn) =>
      guard(
        db.transaction().execute(async (trx) => {
          const totals = new TotalsBuffer()
          const result = await fn(repos(trx, guard, opts.dialect, cache, totals))
          await guard(flushTotals(trx, totals.deltas))
          return result
        }),
      ),
    invoices: top.invoices,
    events: top.events,
    merchants: top.merchants,
    apiKeys: top.apiKeys,
    webhookSecrets: top.webhookSecrets,
    deliveries: top.deliveries,
    attempts: top.attempts,
    evm: top.evm,
    adminTokens: top.adminTokens,
    users: top.users,
    sessions: top.sessions,
    refunds: top.refunds,
    console: new KyselyConsoleReader(db, guard),
    dailyTotals: top.dailyTotals,
    ...(opts.standaloneInserts === true ? { insertInvoice: (inv: Invoice) => top.invoices.insert(inv) } : {}),

    async migrate() {
      const schema = opts.migrationTableSchema && (await guard(opts.migrationTableSchema(db)))
      const migrate = async () => {
        const migrator = new Migrator({
          db,
          provider: migrationProvider(opts.dialect, await guard(appliedMigrations(db, schema))),
          // Migrations are numbered when their work starts, and land in any order (006 refunds after 008): a database
          // that a version with 008 migrated must still take 006. They only ever add, each its own tables, so the
          // order they run in does not matter; Kysely would otherwise refuse ("corrupted migrations").
          allowUnorderedMigrations: true,
          ...(schema === undefined ? {} : { migrationTableSchema: schema }),
        })
        return guard(migrator.migrateToLatest())
      }
      let { error } = await migrate()
      // A newer instance may have migrated between the read of what is applied and the migration lock: once more.
      if (error !== undefined) ({ error } = await migrate())
      if (error !== undefined) throw translateUnavailable(error, opts.isUnavailable)
      await optimize()
    },

    optimize,

    async ping() {
      await guard(sql`select 1`.execute(db))
      if (opts.probe !== undefined) await guard(opts.probe())
    },

    async close() {
      await db.destroy()
    },
  }
}
