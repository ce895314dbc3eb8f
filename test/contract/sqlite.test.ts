/** The Store contract on SQLite (in memory and in a WAL file), and how SQLite reports an unavailable database. */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { isSqliteUnavailable, openSqliteStore } from '../../src/adapters/db/sqlite/sqlite-store.js'
import { StoreUnavailableError } from '../../src/ports/store.js'
import { invoiceFixture, merchantFixture } from './fixtures.js'
import { describeStoreContract } from './store.contract.js'

const dir = mkdtempSync(join(tmpdir(), 'store-contract-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const freshFile = () => join(dir, randomUUID(), 'invoice-service.db') // the directory does not exist yet

describeStoreContract('SQLite :memory:', () => openSqliteStore({ path: ':memory:', synchronous: 'full' }))
describeStoreContract('SQLite file (WAL)', () => openSqliteStore({ path: freshFile(), synchronous: 'normal' }))

describe('SQLite store', () => {
  it('when a version that had 008 but not 006 migrated the file, then this one adds 006 beside it (migrations land out of order)', async () => {
    const path = freshFile()
    const first = await openSqliteStore({ path, synchronous: 'full' })
    await first.migrate()
    await first.close()
    // as the version before refunds left it: every migration but 006 applied
    const raw = new BetterSqlite3(path)
    raw.exec(
      "drop table sandbox_refund_failures; drop table refunds; delete from kysely_migration where name = '006-refunds'",
    )
    raw.close()
    const upgraded = await openSqliteStore({ path, synchronous: 'full' })
    try {
      await upgraded.migrate()
      expect(await upgraded.refunds.listByInvoice(randomUUID() as never)).toEqual([])
    } finally {
      await upgraded.close()
    }
  })

  it('when optimize runs, then the planner has statistics for the invoices indexes, sampled, in milliseconds', async () => {
    const path = freshFile()
    const store = await openSqliteStore({ path, synchronous: 'normal' })
    try {
      await store.migrate()
      const m = merchantFixture()
      await store.transaction(async (tx) => {
        await tx.merchants.insert(m)
        for (let i = 0; i < 3000; i++)
          await tx.invoices.insert(
            invoiceFixture(m.id, i < 10 ? { status: 'hold', service: 'sbp' } : { status: 'paid' }),
          )
      })
      const stats = () => {
        const probe = new BetterSqlite3(path, { readonly: true })
        try {
          const has = probe.prepare("select 1 from sqlite_master where name = 'sqlite_stat1'").get() !== undefined
          return has ? probe.prepare("select idx, stat from sqlite_stat1 where tbl = 'invoices'").all() : []
        } finally {
          probe.close()
        }
      }
      expect(stats()).toEqual([]) // what SQLite never gathers by itself
      const started = performance.now()
      await store.optimize()
      expect(performance.now() - started).toBeLessThan(1000)
      const gathered = stats() as { idx: string; stat: string }[]
      expect(gathered.length).toBeGreaterThanOrEqual(3)
      expect(gathered.every((row) => /^\d+( \d+)+$/.test(row.stat))).toBe(true)
    } finally {
      await store.close()
    }
  })

  it('when opened on a file in a missing directory, then the directory is created and the database is in WAL mode', async () => {
    const path = freshFile()
    const store = await openSqliteStore({ path, synchronous: 'full' })
    await store.migrate()
    const m = merchantFixture()
    await store.transaction((tx) => tx.merchants.insert(m))
    const probe = new BetterSqlite3(path, { readonly: true })
    try {
      expect(probe.pragma('journal_mode', { simple: true })).toBe('wal')
      expect(probe.prepare('select name from merchants where id = ?').get(m.id)).toEqual({ name: m.name })
    } finally {
      probe.close()
    }
    expect(existsSync(`${path}-wal`)).toBe(true)
    await store.close()
  })

  it('when the data survives a reopen, then migrate on the existing file is a no-op', async () => {
    const path = freshFile()
    const m = merchantFixture()
    const first = await openSqliteStore({ path, synchronous: 'full' })
    await first.migrate()
    await first.transaction((tx) => tx.merchants.insert(m))
    await first.close()
    const second = await openSqliteStore({ path, synchronous: 'full' })
    await second.migrate()
    expect(await second.merchants.findById(m.id)).toEqual(m)
    await second.close()
  })

  it('when a newer version migrated the file (a migration this one does not know), then migrate still succeeds and the data stays usable', async () => {
    const path = freshFile()
    const first = await openSqliteStore({ path, synchronous: 'full' })
    await first.migrate()
    await first.close()
    const raw = new BetterSqlite3(path)
    raw
      .prepare('insert into kysely_migration (name, timestamp) values (?, ?)')
      .run('999-from-a-newer-version', new Date().toISOString())
    raw.close()
    const older = await openSqliteStore({ path, synchronous: 'full' })
    await older.migrate() // Kysely alone: "corrupted migrations: previously executed migration 999-from-a-newer-version is missing"
    const m = merchantFixture()
    await older.transaction((tx) => tx.merchants.insert(m))
    expect(await older.merchants.findById(m.id)).toEqual(m)
    await older.close()
  })

  it(
    'when several processes migrate a fresh file at once, then every one succeeds and each migration is applied once',
    // 40 CLI processes on 2 cores: about 26 s on a quiet machine, past 60 s when other work shares the cores
    { timeout: 180_000 },
    async () => {
      const bin = join(import.meta.dirname, '..', '..', 'bin', 'invoice-service.js')
      const migrate = (path: string) =>
        new Promise<{ code: number | null; err: string }>((resolve) => {
          const child = spawn(process.execPath, [bin, 'migrate'], {
            env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: `sqlite:${path}` },
          })
          let err = ''
          child.stderr.on('data', (d: Buffer) => (err += d.toString()))
          child.on('exit', (code) => resolve({ code, err }))
        })
      for (let round = 0; round < 5; round += 1) {
        const path = freshFile()
        // each statement committed alone, these failed with "table merchants already exists" most rounds
        const runs = await Promise.all(Array.from({ length: 8 }, () => migrate(path)))
        for (const r of runs) expect(r, r.err).toMatchObject({ code: 0 })
        const db = new BetterSqlite3(path, { readonly: true })
        try {
          const names = (db.prepare('select name from kysely_migration').all() as { name: string }[]).map((r) => r.name)
          expect(names.length).toBeGreaterThanOrEqual(3)
          expect(new Set(names).size).toBe(names.length)
        } finally {
          db.close()
        }
      }
    },
  )

  it('when another process holds the write lock past busy_timeout, then a write rejects with StoreUnavailableError', async () => {
    const path = freshFile()
    const store = await openSqliteStore({ path, synchronous: 'full', busyTimeoutMs: 50 })
    await store.migrate()
    const m = merchantFixture()
    await store.transaction((tx) => tx.merchants.insert(m))
    const other = new BetterSqlite3(path)
    other.exec('begin exclusive')
    try {
      const err = await store
        .transaction((tx) => tx.invoices.insert(invoiceFixture(m.id)))
        .then(
          () => undefined,
          (e: unknown) => e,
        )
      expect(err).toBeInstanceOf(StoreUnavailableError)
      expect((err as Error).cause).toMatchObject({ code: expect.stringMatching(/^SQLITE_BUSY/) })
      // readers are not blocked by a writer in WAL mode
      expect(await store.merchants.findById(m.id)).toEqual(m)
    } finally {
      other.exec('rollback')
      other.close()
    }
    // once the lock is gone, the store works again
    const inv = invoiceFixture(m.id)
    expect(await store.transaction((tx) => tx.invoices.insert(inv))).toBe('inserted')
    await store.close()
  })

  it('when another process holds the write lock, then the wait for it leaves the event loop free, ping rejects though reads work, and after the first full wait writes fail at once until the lock is back', async () => {
    const path = freshFile()
    const store = await openSqliteStore({ path, synchronous: 'full', busyTimeoutMs: 400 })
    await store.migrate()
    const m = merchantFixture()
    await store.transaction((tx) => tx.merchants.insert(m))
    await store.ping()
    const other = new BetterSqlite3(path)
    other.exec('begin exclusive')
    try {
      let ticks = 0
      const ticker = setInterval(() => (ticks += 1), 10)
      const started = performance.now()
      const first = await store.transaction((tx) => tx.invoices.insert(invoiceFixture(m.id))).catch((e: unknown) => e)
      clearInterval(ticker)
      expect(first).toBeInstanceOf(StoreUnavailableError)
      expect(performance.now() - started).toBeGreaterThanOrEqual(350) // it did wait for the lock…
      expect(ticks).toBeGreaterThan(10) // …on timers: a busy_timeout inside SQLite would have frozen the ticker
      const again = performance.now()
      await expect(store.transaction((tx) => tx.invoices.insert(invoiceFixture(m.id)))).rejects.toBeInstanceOf(
        StoreUnavailableError,
      )
      expect(performance.now() - again).toBeLessThan(100) // the lock is known lost: no second full wait
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError)
      expect(await store.merchants.findById(m.id)).toEqual(m)
    } finally {
      other.exec('rollback')
      other.close()
    }
    await store.ping()
    expect(await store.transaction((tx) => tx.invoices.insert(invoiceFixture(m.id)))).toBe('inserted')
    await store.close()
  })

  it('when the file cannot be opened as a database, then openSqliteStore rejects with StoreUnavailableError', async () => {
    const path = join(dir, randomUUID())
    const asDirectory = await openSqliteStore({ path: join(path, 'x.db'), synchronous: 'full' })
    await asDirectory.close()
    // the path now names a directory: SQLITE_CANTOPEN
    await expect(openSqliteStore({ path, synchronous: 'full' })).rejects.toBeInstanceOf(StoreUnavailableError)
  })

  it('when the database directory cannot be created, then openSqliteStore rejects with StoreUnavailableError', async () => {
    const file = freshFile()
    const store = await openSqliteStore({ path: file, synchronous: 'full' })
    await store.close()
    // a directory below a regular file cannot exist (ENOTDIR), whoever runs the test (root ignores modes)
    await expect(openSqliteStore({ path: join(file, 'sub', 'x.db'), synchronous: 'full' })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    )
  })

  it('when SQLite reports a lock, I/O, full-disk, read-only or cannot-open error, then it counts as unavailable; a constraint does not', () => {
    const sqliteError = (code: string, message = code) => Object.assign(new Error(message), { code })
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR',
      'SQLITE_FULL',
      'SQLITE_READONLY',
      'SQLITE_READONLY_DBMOVED',
      'SQLITE_CANTOPEN',
    ]) {
      expect(isSqliteUnavailable(sqliteError(code)), code).toBe(true)
    }
    expect(isSqliteUnavailable(new TypeError('The database connection is not open'))).toBe(true)
    expect(isSqliteUnavailable(sqliteError('SQLITE_ERROR', 'database is locked'))).toBe(true)
    for (const code of [
      'SQLITE_CONSTRAINT_UNIQUE',
      'SQLITE_CONSTRAINT_PRIMARYKEY',
      'SQLITE_CONSTRAINT_FOREIGNKEY',
      'SQLITE_ERROR',
      'SQLITE_BUSYNESS',
    ]) {
      expect(isSqliteUnavailable(sqliteError(code)), code).toBe(false)
    }
    expect(isSqliteUnavailable('SQLITE_BUSY')).toBe(false)
  })
})
