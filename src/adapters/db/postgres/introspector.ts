/**
 * Kysely's database introspection on PostgreSQL, narrowed to the current schema (the first schema of the
 * search_path, where our tables and Kysely's migration tables live). Kysely's Migrator asks it, on every
 * migrate(), whether its own tables exist. The stock introspector reads the columns of every schema in the
 * database and calls has_schema_privilege() by name for each one, which fails outright ("schema … does not
 * exist") when another schema is dropped at that moment, and grows with everything else in the database.
 */
import {
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  type TableMetadata,
} from 'kysely'

interface ColumnRow {
  table: string
  schema: string
  table_type: string
  column: string
  type: string
  type_schema: string
  not_null: boolean
  has_default: boolean
  is_identity: boolean
  comment: string | null
}

export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<any>

  constructor(db: Kysely<any>) {
    this.#db = db
  }

  async getSchemas(): Promise<{ name: string }[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.#db)
    return rows
  }

  /** Tables and views of the current schema; Kysely's own (kysely_migration*) only when asked for. */
  async getTables(
    options: { withInternalKyselyTables: boolean } = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as "table", ns.nspname as "schema", c.relkind as table_type, a.attname as "column",
             typ.typname as "type", tns.nspname as type_schema, a.attnotnull as not_null, a.atthasdef as has_default,
             (a.attidentity <> '' or coalesce(pg_get_expr(d.adbin, d.adrelid) like 'nextval(%', false)) as is_identity,
             col_description(a.attrelid, a.attnum) as "comment"
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
        join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        join pg_catalog.pg_type typ on typ.oid = a.atttypid
        join pg_catalog.pg_namespace tns on tns.oid = typ.typnamespace
        left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
       order by c.relname, a.attnum`.execute(this.#db)
    const tables = new Map<string, TableMetadata>()
    for (const r of rows) {
      if (!options.withInternalKyselyTables && r.table.startsWith('kysely_migration')) continue
      let table = tables.get(r.table)
      if (table === undefined) {
        table = { name: r.table, schema: r.schema, isView: r.table_type === 'v', columns: [] }
        tables.set(r.table, table)
      }
      table.columns.push({
        name: r.column,
        dataType: r.type,
        dataTypeSchema: r.type_schema,
        isNullable: !r.not_null,
        hasDefaultValue: r.has_default,
        isAutoIncrementing: r.is_identity,
        ...(r.comment === null ? {} : { comment: r.comment }),
      })
    }
    return [...tables.values()]
  }

  async getMetadata(options?: { withInternalKyselyTables: boolean }): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) }
  }
}

/** Kysely's PostgreSQL dialect with the introspector above. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db)
  }
}
