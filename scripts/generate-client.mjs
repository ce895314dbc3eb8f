// `npm run client:generate`: builds the app in-process (from dist/, which the npm script builds first), takes its
// OpenAPI document and writes packages/client/openapi.json and packages/client/src/schema.d.ts. Commit both;
// test/client/generated.test.ts fails when they no longer match the app.
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pino } from 'pino'
import { DOCUMENT_PATH, GENERATION_ENV, TYPES_PATH, renderDocument, renderTypes } from './client-codegen.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { loadConfig } = await import(join(root, 'dist', 'config', 'config.js'))
const { ALL_CURRENCY_CODES } = await import(join(root, 'dist', 'domain', 'currencies.js'))
const { createRuntime } = await import(join(root, 'dist', 'wiring', 'runtime.js'))
const { createHttpApp } = await import(join(root, 'dist', 'wiring', 'http.js'))

const config = loadConfig({ ...GENERATION_ENV, DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }, (c) =>
  ALL_CURRENCY_CODES.includes(c),
)
const rt = await createRuntime(config, { logger: pino({ level: 'silent' }) })
const app = await createHttpApp(rt, { defaultMetrics: false })
try {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' })
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`)
  const doc = res.json()
  writeFileSync(join(root, DOCUMENT_PATH), renderDocument(doc))
  writeFileSync(join(root, TYPES_PATH), await renderTypes(doc))
  const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item)).length
  console.log(`wrote ${DOCUMENT_PATH} (${operations} operations) and ${TYPES_PATH}`)
} finally {
  await rt.close()
}
