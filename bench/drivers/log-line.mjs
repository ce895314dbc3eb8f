// Driver for bench/instructions.mjs: what a request's logging costs, on the service's own logger (createLogger:
// level info, its redaction paths, its LogWriter) writing to /dev/null, INSTR_N times after 2000 of warm-up.
//
//   node bench/drivers/log-line.mjs <child|child-line|root-line|floor-line>
//   child       the per-request child logger Fastify makes (logger.child({ reqId }))
//   child-line  that child and the access-log line written through it (what a request does)
//   root-line   the access-log line written by the root logger, reqId in its object (the same line)
//   floor-line  the same line by a pino logger without redaction (bench/floor-server.mjs's)
import { openSync } from 'node:fs'
import { createRequire } from 'node:module'

const dist = new URL('../../dist/', import.meta.url)
const mode = process.argv[2]
const { createLogger } = await import(new URL('wiring/runtime.js', dist).href)
const { LogWriter } = await import(new URL('adapters/system/log-writer.js', dist).href)
const pino = createRequire(import.meta.url)('pino')

// createLogger writes to fd 1 (bench/instructions.mjs collects it); the floor's logger writes to /dev/null
const service = createLogger({ logLevel: 'info' })
const floor = pino({ level: 'info' }, new LogWriter(openSync('/dev/null', 'a')))
const ids = Array.from({ length: 64 }, (_, i) => `0197abcd-7c1a-7def-8abc-${String(i).padStart(12, '0')}`)
const fields = (i) => ({ method: 'GET', url: `/api/invoice/getInfo?i=${i & 63}`, statusCode: 200, ms: 0.42 })
const operations = {
  child: (i) => service.child({ reqId: ids[i & 63] }),
  'child-line': (i) => service.child({ reqId: ids[i & 63] }).info(fields(i), 'request completed'),
  'root-line': (i) => service.info({ reqId: ids[i & 63], ...fields(i) }, 'request completed'),
  'floor-line': (i) => floor.info({ reqId: ids[i & 63], ...fields(i) }, 'request completed'),
}
const operation = operations[mode]
if (operation === undefined) {
  console.error('usage: node bench/drivers/log-line.mjs <child|child-line|root-line|floor-line>')
  process.exit(2)
}
for (let i = 0; i < 2000; i++) operation(i)
const N = Number(process.env.INSTR_N ?? 0)
for (let i = 0; i < N; i++) operation(i)
