import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, ROOT } from '../helpers/server-process.js'

// docs/operations.md#node-options: the service's Node options, on the `invoice-service` command's first line and in
// `npm start`.
const OPTIONS = ['--max-semi-space-size=16']

describe("the service's Node options", () => {
  it('when the invoice-service command is run as a program, then Node runs with its options', () => {
    // a module loaded before the command's own prints the options Node was started with, and ends the process
    const probe = `data:text/javascript,process.stdout.write(JSON.stringify(process.execArgv));process.exit(0)`
    const r = spawnSync(BIN, ['--help'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: `--import=${probe}` },
    })
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(OPTIONS)
  })

  it('when it is started with npm start, then with the same options', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts['start']).toContain(`node ${OPTIONS.join(' ')} bin/invoice-service.js serve`)
    expect(readFileSync(BIN, 'utf8').split('\n', 1)[0]).toBe(`#!/usr/bin/env -S node ${OPTIONS.join(' ')}`)
  })
})
