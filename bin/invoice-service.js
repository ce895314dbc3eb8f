#!/usr/bin/env node
// The `invoice-service` command: `npm run build` (run by `npm install`) compiles src/ to dist/.
import { main } from '../dist/main.js'

main(process.argv.slice(2), process.env).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (err) => {
    process.stderr.write(`invoice-service: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
