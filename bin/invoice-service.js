#!/usr/bin/env -S node --max-semi-space-size=16
// The `invoice-service` command: `npm run build` (run by `npm install`) compiles src/ to dist/. On a Node.js older
// than the service supports, it runs itself on the one `npm install` brought (docs/operations.md#nodejs-versions).
// Its Node options (the line above; `npm start` passes the same) hold V8's young generation at 16 MB semi-spaces:
// grown to V8's default under load, each request's short-lived objects spread over more memory than the
// processor's caches keep (docs/operations.md#node-options).
import { fileURLToPath } from 'node:url'
import { delegateIfUnsupported } from './supported-node.js'

if (!delegateIfUnsupported(fileURLToPath(import.meta.url), process.argv.slice(2))) {
  // imported only here: the service's SQLite driver cannot load on an unsupported Node
  const { main } = await import('../dist/main.js')
  main(process.argv.slice(2), process.env).then(
    (code) => {
      if (code >= 0) process.exitCode = code
    },
    (err) => {
      process.stderr.write(`invoice-service: ${err instanceof Error ? err.message : String(err)}\n`)
      process.exitCode = 1
    },
  )
}
