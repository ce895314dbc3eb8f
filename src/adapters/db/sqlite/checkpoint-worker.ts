/**
 * The thread that checkpoints the SQLite store's WAL (checkpointer.ts says why it is not the event loop's work).
 *
 * Its own connection to the database and no event loop worth the name: it sleeps on the shared state until the
 * writer counts a commit, checkpoints, rests `intervalMs`, and again. It imports nothing of the service's (under the
 * tests it runs from the TypeScript sources, where only packages resolve); the slots of the shared state and the
 * values of `turn` come in `workerData`.
 */
import { workerData } from 'node:worker_threads'
import BetterSqlite3 from 'better-sqlite3'

/** At most this many rounds (of `intervalMs`) between two requests for the writer's turn while readers hold it back. */
const MAX_BACK_OFF = 64

interface CheckpointWorkerData {
  readonly path: string
  readonly synchronous: 'FULL' | 'NORMAL'
  readonly state: Int32Array
  readonly slots: { readonly commits: number; readonly stop: number; readonly rounds: number; readonly turn: number }
  readonly turn: { readonly idle: number; readonly asked: number; readonly given: number }
  readonly intervalMs: number
  readonly restartAtFrames: number
  readonly handOverWaitMs: number
  readonly readerWaitMs: number
}

interface CheckpointResult {
  readonly busy: number
  readonly log: number
  readonly checkpointed: number
}

const data = workerData as CheckpointWorkerData
const { state, slots, turn } = data
const stopping = (): boolean => Atomics.load(state, slots.stop) !== 0

// timeout: how long a RESTART, holding the writer's turn, waits for readers still on an older snapshot (a lookup's
// lasts a pass); a longer read (an export streaming its rows) outlasts it, and the writer gets its turn back
const db = new BetterSqlite3(data.path, { fileMustExist: true, timeout: data.readerWaitMs })
/** Rounds to let pass before asking for the writer's turn again, after a RESTART that a reader held back. */
let backOff = 0
let nextBackOff = 1
try {
  db.pragma(`synchronous = ${data.synchronous}`)
  db.pragma('wal_autocheckpoint = 0')
  let seen = 0
  for (;;) {
    // until the writer has committed since the last look, or the store closes
    Atomics.wait(state, slots.commits, seen)
    if (stopping()) break
    seen = Atomics.load(state, slots.commits)
    checkpoint()
    Atomics.add(state, slots.rounds, 1)
    // rest, woken early only to stop: checkpoints of a few hundred pages, not one per batch
    Atomics.wait(state, slots.stop, 0, data.intervalMs)
    if (stopping()) break
  }
} finally {
  db.close()
}

/**
 * PASSIVE copies what it can without waiting for anyone: the writer goes on appending meanwhile. But SQLite starts
 * the WAL over (instead of growing it) only when a write transaction begins with every frame copied back, which a
 * busy writer never lets happen: measured, a WAL of 50 MB after 3,000 back-to-back batches. So a WAL past
 * `restartAtFrames` is started over by a RESTART checkpoint, with the writer's turn: asked for here, given by the
 * writer between two batches (driver.ts), so it copies only the frames the PASSIVE one left while the writer's
 * transactions wait their turn — asynchronously, not in the event loop.
 */
function checkpoint(): void {
  let result: CheckpointResult | undefined
  try {
    ;[result] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[]
  } catch {
    // SQLITE_BUSY (another process is checkpointing) or an I/O error: the WAL keeps its frames; the next round tries
    return
  }
  if (result === undefined || result.log < data.restartAtFrames) return
  // a reader on an older snapshot kept the PASSIVE one from copying everything: a RESTART would wait for it too
  if (result.checkpointed < result.log) return
  if (backOff > 0) {
    backOff -= 1
    return
  }
  Atomics.store(state, slots.turn, turn.asked)
  Atomics.wait(state, slots.turn, turn.asked, data.handOverWaitMs)
  // not given in time (no batch ended, or the store is closing): withdraw the request, unless given meanwhile
  if (Atomics.compareExchange(state, slots.turn, turn.asked, turn.idle) === turn.asked) return
  let restarted = false
  try {
    if (!stopping()) restarted = (db.pragma('wal_checkpoint(RESTART)') as CheckpointResult[])[0]?.busy === 0
  } catch {
    // as above; the writer's turn is given back either way
  } finally {
    // held back (a long read): ask less and less often, up to every MAX_BACK_OFF rounds, until one gets through
    backOff = restarted ? 0 : nextBackOff
    nextBackOff = restarted ? 1 : Math.min(nextBackOff * 2, MAX_BACK_OFF)
    Atomics.store(state, slots.turn, turn.idle)
    Atomics.notify(state, slots.turn)
  }
}
