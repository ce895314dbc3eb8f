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
