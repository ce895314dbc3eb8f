import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, ROOT } from '../helpers/server-process.js'

// docs/operations.md#node-options: `npm start` runs the service with its Node options.
const OPTIONS = ['--max-semi-space-size=16']

describe("the service's Node options", () => {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts['start']

  it('when the service is started with npm start, then Node runs with its options', () => {
    expect(start).toMatch(/&& node [^&]*bin\/invoice-service\.js serve$/)
    // npm start's own command line, with the command's --help for serve: a module loaded before the command prints the
    // options Node was started with, and ends the process
    const command = (start ?? '').slice((start ?? '').lastIndexOf('&& node ') + 3).replace(/ serve$/, ' --help')
    const probe = `data:text/javascript,process.stdout.write(JSON.stringify(process.execArgv));process.exit(0)`
    const r = spawnSync('sh', ['-c', command], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: `--import=${probe}` },
    })
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(OPTIONS)
  })

  it('when the command is run as a program, then its first line asks for node alone (busybox env has no -S)', () => {
    expect(readFileSync(BIN, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env node')
  })
})
