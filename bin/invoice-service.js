#!/usr/bin/env node
// The `invoice-service` command: `npm run build` (run by `npm install`) compiles src/ to dist/. On a Node.js older
// than the service supports, it runs itself on the one `npm install` brought (docs/operations.md#nodejs-versions).
// `npm start` runs it with the service's Node options (docs/operations.md#node-options); the line above cannot carry
// them portably (`env -S` is GNU's and the BSDs': busybox's env, Alpine's, has no -S).
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
