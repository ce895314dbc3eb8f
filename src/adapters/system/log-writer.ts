import { fstatSync, write as fsWrite, writeSync } from 'node:fs'

/**
 * The log's destination (pino's stream): the lines of an event-loop pass written together, in one write.
 * - To a regular file (`npm start > service.log`, a file the floor server opens): synchronously, at the end of the
 *   pass (setImmediate). Writing to a file takes the kernel's page cache, never a reader's pace, and the write on
 *   a thread of the pool cost more than the write: the thread woken and the loop woken back, ≈ 2.4 context
 *   switches for each batch; under load ≈ 0.4 µs of CPU a request (docs/performance.md#the-access-log-line).
 *   The service's SQLite writes are made on the loop the same way. pino's own default writes every line at once.
 * - To anything else (a pipe, a socket, a terminal): asynchronously, off the event loop, each write carrying every
 *   line that arrived while the previous one was under way — a reader that stalls must not stall the service.
 *
 * Why not pino.destination (sonic-boom): it writes at most `maxWrite` bytes at a time and measures the UTF-8 length
 * of its open batch on every line, so a large `maxWrite` costs every line more; at the 4 KiB that kept that cost
 * low, one write completes per event-loop pass here and a server answering 30,000 requests a second produced
 * its access log ~3× faster than it was written: the backlog, held in memory, grew by ~15 MB a second for as long
 * as the load lasted. Here a line costs an array push, and one write takes the whole backlog.
 *
 * A destination that stops taking data (a pipe whose reader stalls) cannot make the process run out of memory:
 * past `maxPendingBytes` waiting (counted in UTF-16 code units: one byte each for ASCII, up
 * to three for other text), lines are dropped and counted, and the log says how many once it moves again.
 * EAGAIN (a non-blocking pipe that is full) is waited out; a short write is continued; any other error drops that
 * write's lines, counted the same way. Lines still waiting when the process exits are written synchronously then.
 */
export class LogWriter {
  readonly #fd: number
  readonly #maxPendingBytes: number
  #pending: string[] = []
  #pendingBytes = 0
  /** A write under way (including a wait after EAGAIN). */
  #busy = false
  #dropped = 0
  #writes = 0
  #flushWaiters: Array<(err?: Error) => void> = []
  /** A regular file: each pass's lines written synchronously at its end. */
  readonly #atPassEnd: boolean

  constructor(fd: number, opts: { maxPendingBytes?: number } = {}) {
    this.#fd = fd
    this.#maxPendingBytes = opts.maxPendingBytes ?? 64 * 1024 * 1024
    this.#atPassEnd = isRegularFile(fd)
    exitFlush.add(this)
  }

  /** pino's stream interface: one serialized line, newline included. */
  write(line: string): boolean {
    if (this.#pendingBytes + line.length > this.#maxPendingBytes) {
      this.#dropped += 1
      return false
    }
    this.#pending.push(line)
    this.#pendingBytes += line.length
    if (this.#busy) return true
    if (this.#atPassEnd) {
      this.#busy = true
      setImmediate(this.#writePass)
    } else {
      this.#writeNext()
    }
    return true
  }

  /** Calls back once every line written before it has been handed to the operating system (pino's `logger.flush`). */
  flush(cb: (err?: Error) => void = () => undefined): void {
    if (!this.#busy && this.#pending.length === 0) {
      process.nextTick(cb)
      return
    }
    this.#flushWaiters.push(cb)
  }

  /** Writes what is waiting synchronously (at process exit); a write already under way is left to finish. */
  flushSync(): void {
    const batch = this.#takePending()
    if (batch !== undefined) writeAllSync(this.#fd, Buffer.from(batch.text))
  }

  /** Writes made so far, and lines dropped since the log last said how many were (its notice resets the count). */
  stats(): { readonly writes: number; readonly dropped: number } {
    return { writes: this.#writes, dropped: this.#dropped }
  }

  /** The end of a pass (a regular file): what waits, written now; the lines of a write that fails are dropped. */
  readonly #writePass = (): void => {
    const batch = this.#takePending()
    if (batch !== undefined) {
      this.#writes += 1
      const buf = Buffer.from(batch.text)
      const off = writeAllSync(this.#fd, buf)
      if (off < buf.length) this.#dropUnwritten(batch, buf, off)
    }
    this.#busy = false
    this.#callFlushWaiters()
  }

  #callFlushWaiters(): void {
    const waiters = this.#flushWaiters
    this.#flushWaiters = []
    for (const cb of waiters) cb()
  }

  /** The waiting lines as one text, after a notice of the lines dropped before them; undefined when none wait. */
  #takePending(): { readonly text: string; readonly lines: number; readonly noticed: number } | undefined {
    if (this.#pending.length === 0) return undefined
    let text = this.#pending.join('')
    const lines = this.#pending.length
    this.#pending = []
    this.#pendingBytes = 0
    const noticed = this.#dropped
    if (noticed > 0) {
      // a line of pino's shape (level 40: warn), so that log tooling shows the gap
      text = `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, dropped: noticed, msg: 'log lines dropped: the log destination did not keep up' })}\n${text}`
      this.#dropped = 0
    }
    return { text, lines, noticed }
  }

  #writeNext(): void {
    const batch = this.#takePending()
    if (batch === undefined) {
      this.#busy = false
      this.#callFlushWaiters()
      return
    }
    this.#busy = true
    this.#writes += 1
    this.#writeFrom(Buffer.from(batch.text), 0, batch)
  }

  /** A batch whose write failed after `off` bytes: its lines not written in full, and its notice's, count as dropped. */
  #dropUnwritten(batch: { readonly lines: number; readonly noticed: number }, buf: Buffer, off: number): void {
    this.#dropped += batch.noticed + (off === 0 ? batch.lines : countLines(buf, off))
  }

  #writeFrom(buf: Buffer, off: number, batch: { readonly lines: number; readonly noticed: number }): void {
    fsWrite(this.#fd, buf, off, buf.length - off, null, (err, written) => {
      if (err !== null) {
        if (err.code === 'EAGAIN') {
          setTimeout(() => this.#writeFrom(buf, off, batch), 10)
          return
        }
        // The destination failed (closed pipe, full disk): the batch is lost. Its lines count as dropped (all of
        // them unless the failure came after a short write: then the lines not written in full), and so do those
        // its notice was about; no new write is tried until more lines arrive.
        this.#dropUnwritten(batch, buf, off)
      } else if (off + written < buf.length) {
        this.#writeFrom(buf, off + written, batch)
        return
      }
      this.#writeNext()
    })
  }
}

/**
 * Writes `buf` to `fd` synchronously, continuing after short writes; returns how many bytes went (less than all
 * when a write fails). EAGAIN (a full non-blocking pipe, at exit) is tried again: at most 1000 writes in all.
 */
function writeAllSync(fd: number, buf: Buffer): number {
  let off = 0
  for (let tries = 0; off < buf.length && tries < 1000; tries += 1) {
    try {
      off += writeSync(fd, buf, off, buf.length - off)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') break
    }
  }
  return off
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile()
  } catch {
    return false
  }
}

function countLines(buf: Buffer, from: number): number {
  let n = 0
  for (let i = buf.indexOf(10, from); i !== -1; i = buf.indexOf(10, i + 1)) n += 1
  return n
}

// At exit, what each writer still holds is written synchronously (the 'exit' event allows no more waiting).
// Writers are held weakly: one that is no longer used does not stay alive for this.
const exitFlush = {
  writers: new Set<WeakRef<LogWriter>>(),
  hooked: false,
  add(writer: LogWriter): void {
    for (const ref of this.writers) if (ref.deref() === undefined) this.writers.delete(ref)
    this.writers.add(new WeakRef(writer))
    if (this.hooked) return
    this.hooked = true
    process.on('exit', () => {
      for (const ref of this.writers) ref.deref()?.flushSync()
    })
  },
}
