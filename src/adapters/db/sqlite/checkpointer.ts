/**
 * WAL checkpoints off the event loop.
 *
 * SQLite's default is an automatic checkpoint inside the COMMIT that takes the WAL past 1000 pages: under a steady
 * create load every ≈ 27th batch's COMMIT copied ≈ 1000 pages back into the database file and synced it, ≈ 8 ms in
 * which the event loop answered nothing (bench/history/analyses.json), and every request in flight waited for it.
 * Here the writer's automatic checkpoint is moved far out (a backstop at 10,000 pages, sqlite-store.ts) and a
 * worker thread with a connection of its own checkpoints instead (checkpoint-worker.ts), woken by the writer's
 * commits through shared memory (an atomic add and a notify per COMMIT, no message), at most once per `intervalMs`.
 * The copy and its fsync wait on the disk beside the event loop, not in it. To start a grown WAL over, the thread
 * asks for the writer's turn, which the driver gives between two batches (`handOverIfAsked`).
 *
 * Should the thread fail (it cannot open the file, or ends with an error), the writer's automatic checkpoint goes
 * back to SQLite's default: the WAL stays bounded as before, only on the event loop again.
 */
import { Worker } from 'node:worker_threads'

const SLOTS = { commits: 0, stop: 1, rounds: 2, turn: 3 } as const
/** The writer's turn: nobody asked for it, the thread asked, the writer gave it (and waits for `idle` again). */
const TURN = { idle: 0, asked: 1, given: 2 } as const

export interface CheckpointerOptions {
  readonly path: string
  readonly synchronous: 'FULL' | 'NORMAL'
  /** The writer's own automatic checkpoint, back on: called once if the thread fails. */
  readonly fallBack: () => void
  /** The least time between two checkpoints, ms (a few hundred pages each under load). */
  readonly intervalMs?: number
  /** A WAL of this many frames is started over (SQLite's own automatic checkpoint starts at 1000 pages). */
  readonly restartAtFrames?: number
}

/** How long either side waits for the other in a hand-over before going on without it. */
const HAND_OVER_WAIT_MS = 1000
/**
 * How long a RESTART holding the writer's turn waits for readers on an older snapshot: the writes wait that long at
 * most. The lookups' snapshots end with their pass; a longer read (a CSV export) makes the RESTART give up.
 */
const READER_WAIT_MS = 20

export class Checkpointer {
  readonly #state = new Int32Array(new SharedArrayBuffer(Object.keys(SLOTS).length * 4))
  readonly #worker: Worker
  readonly #exited: Promise<void>
  #stopping = false

  constructor(opts: CheckpointerOptions) {
    // the tests run the sources: the worker is the .ts file beside this one there, the built .js one otherwise
    const file = import.meta.url.endsWith('.ts') ? './checkpoint-worker.ts' : './checkpoint-worker.js'
    this.#worker = new Worker(new URL(file, import.meta.url), {
      workerData: {
        path: opts.path,
        synchronous: opts.synchronous,
        state: this.#state,
        slots: SLOTS,
        turn: TURN,
        intervalMs: opts.intervalMs ?? 100,
        restartAtFrames: opts.restartAtFrames ?? 1000,
        handOverWaitMs: HAND_OVER_WAIT_MS,
        readerWaitMs: READER_WAIT_MS,
      },
    })
    // a store left open must not keep the process alive: the thread only ever sleeps or checkpoints
    this.#worker.unref()
    let failed = false
    const fail = (): void => {
      if (failed || this.#stopping) return
      failed = true
      opts.fallBack()
    }
    this.#worker.on('error', fail)
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', () => {
        fail()
        resolve()
      })
    })
  }

  /** The writer committed: the thread checkpoints when its rest is over. Cheap enough for every COMMIT. */
  committed(): void {
    Atomics.add(this.#state, SLOTS.commits, 1)
    Atomics.notify(this.#state, SLOTS.commits)
  }

  /**
   * Between two batches, holding the writer's turn: if the thread asked for it, gives it and resolves when the
   * thread has started the WAL over (or after HAND_OVER_WAIT_MS); undefined, at once, if it did not ask.
   */
  handOverIfAsked(): Promise<void> | undefined {
    const state = this.#state
    if (Atomics.compareExchange(state, SLOTS.turn, TURN.asked, TURN.given) !== TURN.asked) return undefined
    Atomics.notify(state, SLOTS.turn)
    const { async, value } = Atomics.waitAsync(state, SLOTS.turn, TURN.given, HAND_OVER_WAIT_MS)
    if (!async) return undefined
    // a pending waitAsync does not keep the process alive; the thread, ref'd meanwhile, does
    this.#worker.ref()
    return value.then(() => {
      this.#worker.unref()
    })
  }

  /** How many checkpoint rounds the thread has run. */
  get rounds(): number {
    return Atomics.load(this.#state, SLOTS.rounds)
  }

  /** Stops the thread and waits for it to close its connection (before the writer closes: it checkpoints last). */
  async stop(): Promise<void> {
    this.#stopping = true
    Atomics.store(this.#state, SLOTS.stop, 1)
    Atomics.notify(this.#state, SLOTS.stop)
    Atomics.notify(this.#state, SLOTS.turn)
    // a changed count also wakes a thread that has not begun to wait yet
    this.committed()
    // waited for as a ref'd handle: awaiting an unref'd thread's exit would let the process end first
    this.#worker.ref()
    await this.#exited
  }
}
