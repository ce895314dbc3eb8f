import { spawn, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LogWriter } from './log-writer.js'

const line = (i: number, pad = 0): string =>
  `${JSON.stringify({ level: 30, i, pad: 'x'.repeat(pad), msg: 'request completed' })}\n`
const flushed = (w: LogWriter): Promise<void> => new Promise((resolve) => w.flush(() => resolve()))

describe('LogWriter (the log destination)', () => {
  let dir: string
  let fds: number[]
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'log-writer-'))
    fds = []
  })
  afterEach(() => {
    for (const fd of fds) closeSync(fd)
    rmSync(dir, { recursive: true, force: true })
  })
  const open = (name: string, flags = 'a'): number => {
    const fd = openSync(join(dir, name), flags)
    fds.push(fd)
    return fd
  }

  /**
   * A pipe to `cat > file` (not a regular file: written asynchronously), whose reader starts `stallSeconds` late;
   * `end` closes it and waits for cat.
   */
  const pipeTo = (name: string, stallSeconds = 0): { fd: number; end: () => Promise<void>; path: string } => {
    const path = join(dir, name)
    const stall = stallSeconds > 0 ? `sleep ${stallSeconds}; ` : ''
    const reader = spawn('sh', ['-c', `${stall}cat > '${path}'`], { stdio: ['pipe', 'ignore', 'inherit'] })
    const exited = new Promise<void>((resolve) => reader.on('exit', () => resolve()))
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd
    return {
      fd,
      path,
      end: async () => {
        reader.stdin?.end()
        await exited
      },
    }
  }

  it('when 100,000 lines arrive at once to a regular file, then they are written in one write, at the end of the pass', async () => {
    const w = new LogWriter(open('a.log'))
    const expected: string[] = []
    for (let i = 0; i < 100_000; i++) {
      expected.push(line(i))
      w.write(line(i))
    }
    expect(readFileSync(join(dir, 'a.log'), 'utf8')).toBe('')
    // the writer's end of the pass comes before this one's (both are immediates, queued in that order), and writes
    // synchronously: nothing is left to wait for
    await new Promise((resolve) => setImmediate(resolve))
    expect(readFileSync(join(dir, 'a.log'), 'utf8')).toBe(expected.join(''))
    expect(w.stats()).toEqual({ writes: 1, dropped: 0 })
  })

  it('when lines arrive over 50 passes to a regular file, then each pass is one write', async () => {
    const w = new LogWriter(open('b.log'))
    let n = 0
    for (let pass = 0; pass < 50; pass++) {
      for (let k = 0; k < 200; k++) w.write(line(n++))
      await new Promise((resolve) => setImmediate(resolve))
    }
    await flushed(w)
    expect(readFileSync(join(dir, 'b.log'), 'utf8')).toBe(Array.from({ length: n }, (_, i) => line(i)).join(''))
    expect(w.stats().writes).toBe(50)
  })

  it('when 100,000 lines arrive at once to a pipe, then all are written in order, in two writes (the first line, then the backlog)', async () => {
    const pipe = pipeTo('a-pipe.log')
    const w = new LogWriter(pipe.fd)
    const expected: string[] = []
    for (let i = 0; i < 100_000; i++) {
      expected.push(line(i))
      w.write(line(i))
    }
    await flushed(w)
    await pipe.end()
    expect(readFileSync(pipe.path, 'utf8')).toBe(expected.join(''))
    // a writer that cuts its batches (pino.destination cuts at maxWrite) needs hundreds of writes here, one per
    // event-loop pass under load, and falls behind a busy server
    expect(w.stats()).toEqual({ writes: 2, dropped: 0 })
  })

  it('when lines keep arriving to a pipe while writes are under way, then each write takes everything that waited', async () => {
    const pipe = pipeTo('b-pipe.log')
    const w = new LogWriter(pipe.fd)
    let n = 0
    for (let pass = 0; pass < 50; pass++) {
      for (let k = 0; k < 200; k++) w.write(line(n++))
      await new Promise((resolve) => setImmediate(resolve))
    }
    await flushed(w)
    await pipe.end()
    expect(readFileSync(pipe.path, 'utf8').split('\n').length - 1).toBe(10_000)
    expect(w.stats().writes).toBeLessThanOrEqual(51)
  })

  it('when flushed with nothing waiting, then it calls back at once', async () => {
    const w = new LogWriter(open('c.log'))
    await flushed(w)
    expect(w.stats().writes).toBe(0)
  })

  it('when more than maxPendingBytes wait, then later lines are dropped, and the log says how many before what follows', async () => {
    const w = new LogWriter(open('d.log'), { maxPendingBytes: 100_000 })
    const accepted: string[] = []
    let dropped = 0
    for (let i = 0; i < 1000; i++) {
      // every line waits for the end of the pass, so the cap is reached
      if (w.write(line(i, 1000))) accepted.push(line(i, 1000))
      else dropped += 1
    }
    expect(dropped).toBeGreaterThan(800)
    await flushed(w)
    w.write(line(-1))
    await flushed(w)
    const lines = readFileSync(join(dir, 'd.log'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
    const notice = lines.findIndex((l) => l.includes('log lines dropped'))
    expect(JSON.parse(lines[notice] as string)).toMatchObject({ level: 40, dropped })
    expect(lines.filter((_, i) => i !== notice).map((l) => `${l}\n`)).toEqual([...accepted, line(-1)])
  })

  it('when the destination rejects writes, then their lines are counted as dropped and the writer goes on', async () => {
    writeFileSync(join(dir, 'ro.log'), '')
    const w = new LogWriter(open('ro.log', 'r'))
    for (let i = 0; i < 10; i++) w.write(line(i))
    await flushed(w)
    // the first line's write fails, then the nine that waited for it: every line is accounted for, once
    expect(w.stats().dropped).toBe(10)
  })

  it('when the reader of a pipe stalls, then a full pipe (EAGAIN) is waited out and every line arrives in order', async () => {
    const pipe = pipeTo('pipe.log', 0.4)
    const w = new LogWriter(pipe.fd)
    const expected: string[] = []
    // 3 MB: far more than a pipe holds (64 KiB), written while nobody reads
    for (let i = 0; i < 3000; i++) {
      expected.push(line(i, 1000))
      w.write(line(i, 1000))
    }
    await flushed(w)
    await pipe.end()
    const got = readFileSync(pipe.path, 'utf8')
    expect(got.length).toBe(expected.join('').length)
    expect(got).toBe(expected.join(''))
  })

  it('when the process exits with lines still waiting, then they are written before it ends', () => {
    const out = join(dir, 'exit.log')
    const module = fileURLToPath(new URL('../../../dist/adapters/system/log-writer.js', import.meta.url))
    const script = `import { openSync } from 'node:fs'
import { LogWriter } from ${JSON.stringify(module)}
const w = new LogWriter(openSync(${JSON.stringify(out)}, 'a'))
for (let i = 0; i < 5000; i++) w.write('line ' + i + '\\n')
process.exit(0)`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(r.status).toBe(0)
    const lines = readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
    expect(lines).toEqual(Array.from({ length: 5000 }, (_, i) => `line ${i}`))
  })
})
