/**
 * Migrations are code, listed here in order: no directory scanning, so they run the same from src/ (tests)
 * and dist/ (the built package). Kysely applies them in the lexical order of their names.
 */
import type { Migration, MigrationProvider } from 'kysely'
import type { SqlDialect } from '../schema.js'
import { initialMigration } from './001-initial.js'
import { webhooksMigration } from './002-webhooks.js'
import { merchantDueIndexMigration } from './003-merchant-due-index.js'

export function migrationProvider(dialect: SqlDialect): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '001-initial': initialMigration(dialect),
    '002-webhooks': webhooksMigration(dialect),
    '003-merchant-due-index': merchantDueIndexMigration(),
  }
  return { getMigrations: async () => migrations }
}
