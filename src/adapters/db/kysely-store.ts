/**
 * The Store port over a Kysely instance: everything but opening the database is shared by the SQLite adapter
 * and the PostgreSQL one to come; each supplies its dialect and its "database unavailable" classifier.
 */
import { Migrator, sql, type Kysely } from 'kysely'
import type { Store, Tx } from '../../ports/store.js'
import { KyselyApiKeyRepo, KyselyMerchantRepo, KyselyWebhookSecretRepo } from './account-repos.js'
import { KyselyEventRepo, KyselyInvoiceRepo } from './invoice-repo.js'
import { migrationProvider } from './migrations/index.js'
import type { Database, SqlDialect } from './schema.js'
import { createGuard, translateUnavailable, type Guard } from './unavailable.js'

export interface KyselyStoreOptions {
  readonly dialect: SqlDialect
  /** True for errors that mean the database cannot be reached or written; they become StoreUnavailableError. */
  readonly isUnavailable: (err: unknown) => boolean
}

function repos(db: Kysely<Database>, guard: Guard): Tx {
  return {
    invoices: new KyselyInvoiceRepo(db, guard),
    events: new KyselyEventRepo(db, guard),
    merchants: new KyselyMerchantRepo(db, guard),
    apiKeys: new KyselyApiKeyRepo(db, guard),
    webhookSecrets: new KyselyWebhookSecretRepo(db, guard),
  }
}

export function createKyselyStore(db: Kysely<Database>, opts: KyselyStoreOptions): Store {
  const guard = createGuard(opts.isUnavailable)
  // The Store's readers run on the plain database, outside any transaction.
  const top = repos(db, guard)
  return {
    // The guard also covers begin/commit; errors thrown by `fn` itself pass through it unchanged.
    transaction: (fn) => guard(db.transaction().execute((trx) => fn(repos(trx, guard)))),
    invoices: top.invoices,
    events: top.events,
    merchants: top.merchants,
    apiKeys: top.apiKeys,
    webhookSecrets: top.webhookSecrets,

    async migrate() {
      const migrator = new Migrator({ db, provider: migrationProvider(opts.dialect) })
      const { error } = await guard(migrator.migrateToLatest())
      if (error !== undefined) throw translateUnavailable(error, opts.isUnavailable)
    },

    async ping() {
      await guard(sql`select 1`.execute(db))
    },

    async close() {
      await db.destroy()
    },
  }
}
