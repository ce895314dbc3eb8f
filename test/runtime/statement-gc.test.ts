import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// docs/operations.md#nodejs-versions: better-sqlite3 12 aborted the process on Node 24 when a collection finalized
// prepared statements (at exit, and under load); the SQLite driver must survive it on every supported Node.
const FIXTURE = join(import.meta.dirname, 'statement-gc.fixture.mjs')

describe(`prepared statements collected by the garbage collector (Node ${process.versions.node})`, () => {
  it.each(['natural', 'exit', 'close', 'close-exit'])(
    'when many statements are made and collected under load and the process then ends (%s), then it exits 0',
    (how) => {
      // three runs each: with better-sqlite3 12 on Node 24 three in four of these runs aborted
      for (let run = 0; run < 3; run++) {
        const r = spawnSync(process.execPath, ['--expose-gc', FIXTURE, how], { encoding: 'utf8', timeout: 60_000 })
        expect(r.stderr).not.toContain('Assertion failed')
        expect(r.signal).toBeNull()
        expect(r.status).toBe(0)
        expect(r.stdout).toBe('made 6000 statements\n')
      }
    },
  )
})
