import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../helpers/api.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

/** A parsed JSON document. */
type Json = Record<string, any>

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const

/** Every media type object of a request body or response carries an example, itself or in its schema. */
function hasExample(media: Json, doc: Json): boolean {
  if (media['example'] !== undefined || media['examples'] !== undefined) return true
  let schema: Json | undefined = media['schema']
  const ref = schema?.['$ref']
  if (typeof ref === 'string') schema = doc['components']['schemas'][ref.replace('#/components/schemas/', '')]
  return Array.isArray(schema?.['examples']) && schema['examples'].length > 0
}

/** The operations of /openapi.json, as the document's quality rules see them (redocly.yaml checks the rest). */
describe('OpenAPI document quality', () => {
  let t: TestApp
  let doc: Json
  const operations: { where: string; op: Json }[] = []
  beforeAll(async () => {
    t = await buildTestApp()
    doc = (await api(t).openapi()).body
    for (const [path, item] of Object.entries<Json>(doc['paths'])) {
      for (const m of METHODS)
        if (item[m] !== undefined) operations.push({ where: `${m.toUpperCase()} ${path}`, op: item[m] })
    }
    for (const [name, item] of Object.entries<Json>(doc['webhooks']))
      operations.push({ where: `webhook ${name}`, op: item['post'] })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('when the document is read, then every operation has a unique operationId, a summary and a tag', () => {
    expect(operations.length).toBeGreaterThanOrEqual(16)
    const ids = operations.map(({ op }) => op['operationId'])
    expect(new Set(ids).size).toBe(ids.length)
    for (const { where, op } of operations) {
      expect(op['operationId'], where).toMatch(/^[a-z][A-Za-z]+$/)
      expect(op['summary'], where).toEqual(expect.any(String))
      expect(op['tags'], where).toHaveLength(1)
    }
  })

  it('when the document is read, then every request body and every response with a body has an example', () => {
    for (const { where, op } of operations) {
      for (const [type, media] of Object.entries<Json>(op['requestBody']?.['content'] ?? {})) {
        expect(hasExample(media, doc), `${where} request ${type}`).toBe(true)
      }
      for (const [status, response] of Object.entries<Json>(op['responses'])) {
        for (const [type, media] of Object.entries<Json>(response['content'] ?? {})) {
          if (type === 'image/png') continue // a binary image
          expect(hasExample(media, doc), `${where} ${status} ${type}`).toBe(true)
        }
      }
    }
  })

  it('when a merchant operation is read, then it documents its error responses as problem+json with an example per code', () => {
    for (const { where, op } of operations.filter(({ op }) => op['security']?.[0]?.['ApiKey'] !== undefined)) {
      const statuses = Object.keys(op['responses'])
      expect(statuses, where).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500', '503']))
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        const media = op['responses'][status]['content']['application/problem+json']
        expect(media?.['schema'], `${where} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' })
        for (const example of Object.values<Json>(media['examples'])) {
          expect(example['value'], `${where} ${status}`).toMatchObject({
            status: Number(status),
            code: expect.any(String),
          })
        }
      }
    }
  })

  it('when a merchant POST is sent a body that is not JSON, malformed or too large, then the answer is one its operation documents', async () => {
    const shop = api(t).as(await t.merchant())
    const ID = '00000000-0000-7000-8000-000000000000'
    const bodies = [
      { 'content-type': 'text/plain', payload: 'x' },
      { 'content-type': 'application/json', payload: '{"x":' },
      { 'content-type': 'application/json', payload: JSON.stringify({ x: 'y'.repeat(20_000) }) },
    ]
    for (const [path, item] of Object.entries<Json>(doc['paths'])) {
      const op = item['post']
      if (op?.['security']?.[0]?.['ApiKey'] === undefined) continue
      for (const { 'content-type': type, payload } of bodies) {
        const res = await shop.raw({
          method: 'POST',
          url: path.replace(/\{[a-z_]+\}/g, ID),
          headers: { 'content-type': type },
          payload,
        })
        const code = res.body.code
        expect(
          Object.keys(op['responses']),
          `POST ${path} (${type}, ${payload.length} bytes) → ${res.status} ${code}`,
        ).toContain(String(res.status))
        const examples = Object.values<Json>(
          op['responses'][String(res.status)]['content']['application/problem+json']['examples'],
        )
        expect(
          examples.map((e) => e['value']['code']),
          `POST ${path} → ${code}`,
        ).toContain(code)
      }
    }
  })

  it('when a public operation is read, then it says it needs no key', () => {
    for (const { where, op } of operations.filter(
      ({ op }) => op['tags'][0] === 'public' || op['tags'][0] === 'operations',
    )) {
      expect(op['security'], where).toEqual([])
    }
  })
})
