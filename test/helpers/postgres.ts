/**
 * PostgreSQL for tests: `TEST_DATABASE_URL` names a database the tests may create schemas in (.ci/run sets it).
 * Every store or app under test gets a fresh schema of its own, selected through the connection string's
 * search_path, so test files running in parallel never see each other's rows, and counts stay exact.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The database URL the PostgreSQL tests run against; undefined when they are to be skipped. */
export const TEST_DATABASE_URL: string | undefined = process.env.TEST_DATABASE_URL?.trim() || undefined

/** DEVELOPERS: in CI nothing may be skipped, so a missing TEST_DATABASE_URL is a failure there. */
export const IS_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false'

export const MISSING_IN_CI =
  'TEST_DATABASE_URL is not set, but CI is: the PostgreSQL tests must run in CI (.ci/run starts PostgreSQL and sets it)'

/** The URL to test against; throws in CI when there is none (outside CI callers skip instead). */
export function requireTestDatabaseUrl(): string {
  if (TEST_DATABASE_URL === undefined) throw new Error(IS_CI ? MISSING_IN_CI : 'TEST_DATABASE_URL is not set')
  return TEST_DATABASE_URL
}

/** `url` with its search_path set to `schema` (a libpq `options` parameter, which pg passes to the server). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url)
  u.searchParams.set('options', `-c search_path=${schema}`)
  return u.toString()
}

export interface TestSchema {
  readonly name: string
  /** The base URL with search_path set to this schema. */
  readonly url: string
  /** Drops the schema and everything in it. */
  drop(): Promise<void>
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** Creates an empty schema with a random name (`t_<hex>`); the caller drops it. */
export async function createTestSchema(baseUrl: string = requireTestDatabaseUrl()): Promise<TestSchema> {
  const name = `t_${randomBytes(8).toString('hex')}`
  await admin(baseUrl, (c) => c.query(`create schema ${name}`))
  return {
    name,
    url: withSearchPath(baseUrl, name),
    drop: () => admin(baseUrl, (c) => c.query(`drop schema if exists ${name} cascade`)).then(() => undefined),
  }
}

/**
 * Schemas the apps of this test file ran on, migrated and emptied for the next one (test files run in processes of
 * their own, so the pool is per file). Making, migrating and dropping a schema for every app cost about 340 ms;
 * emptying one costs a few: see leaseEmptySchema.
 */
const emptied: TestSchema[] = []

/** Every table of the schema emptied but Kysely's own (the migrations stay applied), identities restarted. */
const EMPTY_ALL_TABLES = `DO $$ DECLARE tables text; BEGIN
  SELECT string_agg(format('%I', tablename), ', ') INTO tables FROM pg_tables
   WHERE schemaname = current_schema() AND tablename NOT LIKE 'kysely\\_migration%';
  IF tables IS NOT NULL THEN EXECUTE 'TRUNCATE ' || tables || ' RESTART IDENTITY CASCADE'; END IF;
END $$`

/**
 * A schema as empty of rows as a new one: an emptied one of this file's earlier apps (already migrated, so the
 * app's migrate finds nothing to do), else a new one. `release()` empties it and keeps it for the next app; the
 * pool is dropped after the file (dropEmptiedSchemas, test/setup.ts).
 */
export async function leaseEmptySchema(): Promise<TestSchema & { release(): Promise<void> }> {
  const schema = emptied.pop() ?? (await createTestSchema())
  return {
    ...schema,
    async release() {
      try {
        await admin(schema.url, (c) => c.query(EMPTY_ALL_TABLES))
      } catch (err) {
        await schema.drop()
        throw err
      }
      emptied.push(schema)
    },
  }
}

/** Drops the schemas kept by leaseEmptySchema. */
export async function dropEmptiedSchemas(): Promise<void> {
  for (const schema of emptied.splice(0)) await schema.drop()
}
