import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { endianness, tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Checkpointer } from '../../src/adapters/db/sqlite/checkpointer.js'
import { openSqliteStore } from '../../src/adapters/db/sqlite/sqlite-store.js'
import type { Store } from '../../src/ports/store.js'
import { until } from '../helpers/until.js'
import { givenMerchant, invoiceFixture } from './fixtures.js'

// The WAL is checkpointed by a thread of its own, not inside the writer's COMMITs on the event loop
// (src/adapters/db/sqlite/checkpointer.ts, docs/operations.md#storage).

interface CheckpointResult {
  busy: number
  log: number
  checkpointed: number
}

/** The frames in the WAL now, as another process would see them (a PASSIVE checkpoint that copies nothing new). */
function walFrames(path: string): number {
  const outside = new BetterSqlite3(path)
  try {
    const [r] = outside.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[]
    return r!.log
  } finally {
    outside.close()
  }
}

/** The most frames the WAL has held since it was made: its file is reused from the start, never shortened. */
function walFileFrames(path: string): number {
  return Math.floor((statSync(`${path}-wal`).size - 32) / (4096 + 24))
}

/** A writer as the driver's (WAL, its own automatic checkpoint off) on a table of its own, and the thread beside it. */
function writerWithThread(path: string, opts: { intervalMs: number; restartAtFrames: number }) {
  const writer = new BetterSqlite3(path)
  writer.pragma('journal_mode = WAL')
  writer.pragma('wal_autocheckpoint = 0')
  writer.exec('create table t (id integer primary key, body text)')
  const checkpointer = new Checkpointer({
    path,
    synchronous: 'FULL',
    fallBack: () => {
      throw new Error('the thread failed')
    },
    ...opts,
  })
  return { writer, checkpointer, insert: writer.prepare('insert into t (body) values (?)') }
}

/**
 * Whether every frame in the WAL has been copied back into the database, read from the WAL index (the `-shm` file)
 * without taking part: its header's last valid frame (`mxFrame`, at byte 16) against the checkpoint's progress
 * (`nBackfill`, at byte 96), both in the machine's byte order (SQLite's wal.c). A checkpoint run from here to look
 * would copy the frames itself and hide whether the thread did.
 */
function walCopiedBack(path: string): boolean {
  const index = readFileSync(`${path}-shm`)
  const u32 = (at: number): number => (endianness() === 'LE' ? index.readUInt32LE(at) : index.readUInt32BE(at))
  return u32(16) > 0 && u32(96) === u32(16)
}

/** Waits (5 s at most) until the thread has done what `check` looks for. */
const untilThread = (what: string, check: () => boolean): Promise<void> => until(what, check, { ms: 5000, everyMs: 10 })

describe('SQLite checkpoints off the event loop', () => {
  let dir: string
  let path: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'checkpoints-'))
    path = join(dir, 'c.db')
  })
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('when the store commits, then the thread copies the WAL back and the writer starts it over', async () => {
    const store: Store = await openSqliteStore({ path, synchronous: 'full' })
    try {
      await store.migrate()
      const merchant = await givenMerchant(store)
      // a few hundred frames: far below the 1000 pages at which the writer's own automatic checkpoint would run
      for (let i = 0; i < 40; i += 1) await store.transaction((tx) => tx.invoices.insert(invoiceFixture(merchant.id)))
      expect(walFileFrames(path)).toBeGreaterThan(40)
      // copied back by the thread (however long a loaded machine keeps it waiting for a core: a fixed 300 ms was not
      // enough in one CI run), then the writer's next transaction begins the WAL anew, so it holds that one alone
      await until('the thread to copy the WAL back', () => walCopiedBack(path), { ms: 20_000, everyMs: 20 })
      await store.transaction((tx) => tx.invoices.insert(invoiceFixture(merchant.id)))
      expect(walFrames(path)).toBeLessThan(20)
    } finally {
      await store.close()
    }
  })

  it('when a writer commits back to back, then a RESTART given the turn between two batches starts the WAL over', async () => {
    const { writer, checkpointer, insert } = writerWithThread(path, { intervalMs: 20, restartAtFrames: 200 })
    try {
      // the thread up (its first round done) before the writer's burst
      insert.run('first')
      checkpointer.committed()
      await untilThread('the first checkpoint', () => checkpointer.rounds > 0)
      // a batch per pass, as the driver makes them, the turn offered after each COMMIT, until the thread has
      // taken it three times (however long a loaded machine keeps it waiting for a core)
      const batch = (): void => {
        writer.exec('begin immediate')
        for (let k = 0; k < 20; k += 1) insert.run('x'.repeat(500))
        writer.exec('commit')
        checkpointer.committed()
      }
      let handOvers = 0
      const started = performance.now()
      while (handOvers < 3 && performance.now() - started < 20_000) {
        batch()
        const handedOver = checkpointer.handOverIfAsked()
        if (handedOver !== undefined) {
          await handedOver
          handOvers += 1
        }
        await new Promise((done) => setImmediate(done))
      }
      expect(handOvers).toBe(3)
      // the RESTART just done started the WAL over: the next batch's frames are all it holds (unchecked, it would
      // hold every batch's since the first)
      batch()
      expect(walFrames(path)).toBeLessThan(20)
    } finally {
      await checkpointer.stop()
      writer.close()
    }
  })

  it('when a long read holds an old snapshot (an export), then the writer is not kept waiting for it', async () => {
    const { writer, checkpointer, insert } = writerWithThread(path, { intervalMs: 5, restartAtFrames: 50 })
    const reader = new BetterSqlite3(path, { readonly: true })
    try {
      insert.run('first')
      checkpointer.committed()
      await untilThread('the first checkpoint', () => checkpointer.rounds > 0)
      // a read transaction that outlives many batches, as a CSV export streaming its rows does
      reader.exec('begin')
      reader.prepare('select count(*) from t').get()
      let handOvers = 0
      const started = performance.now()
      // 1.5 s of batches, longer if a loaded machine has not given the thread ten rounds by then
      while (
        performance.now() - started < 1500 ||
        (checkpointer.rounds <= 10 && performance.now() - started < 20_000)
      ) {
        writer.exec('begin immediate')
        for (let k = 0; k < 20; k += 1) insert.run('x'.repeat(500))
        writer.exec('commit')
        checkpointer.committed()
        const handedOver = checkpointer.handOverIfAsked()
        if (handedOver !== undefined) {
          handOvers += 1
          await handedOver
        }
        await new Promise((done) => setImmediate(done))
      }
      // A RESTART would wait for the reader, holding the writer's turn meanwhile: while a reader holds frames back
      // (the PASSIVE checkpoint could not copy them all) the turn is not asked for at all. Counted, not timed: a loaded
      // machine's pauses say nothing of it.
      expect(handOvers).toBe(0)
      expect(checkpointer.rounds).toBeGreaterThan(10)
    } finally {
      reader.close()
      await checkpointer.stop()
      writer.close()
    }
  })

  it('when the thread cannot run, then the writer gets its own automatic checkpoint back', async () => {
    let fellBack = 0
    const checkpointer = new Checkpointer({
      path: join(dir, 'missing.db'),
      synchronous: 'FULL',
      fallBack: () => fellBack++,
    })
    await untilThread('the fallback', () => fellBack > 0)
    await checkpointer.stop()
    expect(fellBack).toBe(1)
  })
})
