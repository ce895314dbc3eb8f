import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DOCUMENT_PATH,
  GENERATION_ENV,
  TYPES_PATH,
  renderDocument,
  renderTypes,
} from '../../scripts/client-codegen.mjs'
import { api } from '../helpers/api.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

const ROOT = join(import.meta.dirname, '..', '..')
const STALE = 'is stale: run `npm run client:generate` and commit the result'

/**
 * The client's types are generated from the service's own document (npm run client:generate). These fail as soon
 * as a route schema changes without the committed document and types following it.
 */
describe('the generated client files', () => {
  let t: TestApp
  let doc: unknown
  beforeAll(async () => {
    t = await buildTestApp({ ...GENERATION_ENV }, { db: 'sqlite' })
    doc = (await api(t).openapi()).body
  })
  afterAll(async () => {
    await t?.close()
  })

  it('when the live app serves /openapi.json, then it is exactly packages/client/openapi.json', () => {
    expect(readFileSync(join(ROOT, DOCUMENT_PATH), 'utf8'), `${DOCUMENT_PATH} ${STALE}`).toBe(renderDocument(doc))
  })

  it('when types are generated from the live document, then they are exactly packages/client/src/schema.d.ts', async () => {
    expect(readFileSync(join(ROOT, TYPES_PATH), 'utf8'), `${TYPES_PATH} ${STALE}`).toBe(await renderTypes(doc))
  })
})
