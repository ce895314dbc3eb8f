import { isUtf8 } from 'node:buffer'
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify'
import { parse as parseKeepingNumbers } from 'lossless-json'
import { parse as parseJson } from 'secure-json-parse'
import { AppError } from '../../domain/errors.js'

/**
 * The `application/json` body parser (docs/api.md#create-an-invoice, docs/api.md#errors), in place of Fastify's own, which answers every failure with
 * one "not valid JSON" and decodes whatever bytes it gets:
 * - bytes that are not UTF-8 are `invalid_json` (JSON is UTF-8, RFC 8259 §8.1), not text with U+FFFD put in;
 * - a key named `__proto__` (or `constructor` holding `prototype`) is a field the API does not know: 400
 *   `validation_failed` naming it, as for any unknown field. It is still never let through (prototype poisoning);
 * - a key given twice in one object is `invalid_json`: JSON.parse would keep the last one silently, and a proxy or
 *   a signature check in front of us may have read the first (which one the client meant is not guessed);
 * - the JSON numbers of the fields named in `exactNumbers` keep the text the client wrote (`numberText`): a double
 *   cannot say whether the client sent 100.5, 100.500 or 100.50000000000000001, and money is checked on that text.
 */
export function registerJsonBody(app: FastifyInstance, opts: { readonly exactNumbers: readonly string[] }): void {
  const exact = opts.exactNumbers
  // A route that takes no body (capture, cancel, retry) answers an empty one as no body, whatever type it is
  // labelled with: many HTTP clients send `Content-Type: application/json` (or a form type) on every POST, and
  // "the body is empty" (400) or 415 would refuse a request that asked for nothing wrong. A body that is not
  // empty is parsed as on any route.
  app.addHook('onRoute', (route) => {
    if (route.schema?.body !== undefined || [route.method].flat().every((m) => BODYLESS_METHODS.has(m))) return
    route.preParsing = [...[route.preParsing ?? []].flat(), emptyBodyIsNoBody]
  })
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw: Buffer, done) => {
    // a chunked body that turned out empty, on a route that takes none (see emptyBodyIsNoBody): no body
    if (raw.length === 0 && request.routeOptions.schema?.body === undefined) return done(null, undefined)
    const parsed = parseJsonBody(raw, exact)
    if (parsed instanceof AppError) done(parsed, undefined)
    else done(null, parsed.body)
  })
}

/**
 * A body as the `application/json` parser above takes it on a route that takes one: its value (with the
 * `exactNumbers` fields' texts kept for `numberText`), or the refusal the parser answers with. Also called by the
 * create fast path (create-fast-path.ts), which hands a refused body to the framework.
 */
export function parseJsonBody(raw: Buffer, exact: readonly string[]): { readonly body: unknown } | AppError {
  if (raw.length === 0) return new AppError('invalid_json', 'the body is empty; send a JSON object')
  if (!isUtf8(raw)) return new AppError('invalid_json', 'the body is not valid UTF-8')
  const utf8 = raw.toString('utf8')
  const text = utf8.charCodeAt(0) === 0xfeff ? utf8.slice(1) : utf8 // a byte order mark, as Fastify's parser allows
  let body: unknown
  try {
    body = parseJson(text, { protoAction: 'error', constructorAction: 'error' })
  } catch {
    return refusal(text)
  }
  const twice = duplicateKey(text)
  if (twice !== undefined)
    return new AppError('invalid_json', `the key ${JSON.stringify(twice.slice(0, 64))} is given twice in one object`)
  if (exact.length > 0 && isObject(body) && exact.some((field) => typeof body[field] === 'number')) {
    try {
      const source = parseKeepingNumbers(text, undefined, (digits) => digits) as Record<string, unknown>
      const texts = new Map<string, string>()
      for (const field of exact)
        if (typeof source[field] === 'string' && typeof body[field] === 'number') texts.set(field, source[field])
      numberTexts.set(body, texts)
    } catch (err) {
      // lossless-json refuses keys given twice, answered above; should it refuse anything else, it is said here
      return new AppError('invalid_json', `the body is not JSON this API accepts: ${(err as Error).message}`)
    }
  }
  return { body }
}

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

/**
 * preParsing: an empty body carries no content type, so Fastify parses nothing. Empty is `Content-Length: 0`, or
 * neither Content-Length nor Transfer-Encoding (RFC 9112 §6.3: such a request has no body; PHP's curl sends a
 * bodiless POST so). A chunked body is empty only once read: the JSON parser takes an empty one as none too.
 */
function emptyBodyIsNoBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
  done: (err: null, payload: RequestPayload) => void,
): void {
  const h = request.headers
  if (h['transfer-encoding'] === undefined && (h['content-length'] === '0' || h['content-length'] === undefined))
    delete h['content-type']
  done(null, payload)
}

const numberTexts = new WeakMap<object, ReadonlyMap<string, string>>()

/** The JSON number in `body[field]` as the client wrote it (`"100.50"`, `"1e2"`), for a field parsed as exact. */
export function numberText(body: object, field: string): string | undefined {
  return numberTexts.get(body)?.get(field)
}

/** Why `text` did not parse: not JSON at all, or JSON with a key that could poison a prototype. */
function refusal(text: string): AppError {
  let plain: unknown
  try {
    plain = JSON.parse(text) // keys such as __proto__ become plain own properties here: safe to look at, never returned
  } catch {
    return new AppError('invalid_json', 'the body is not valid JSON')
  }
  const field = poisonedKey(plain) ?? '__proto__'
  return new AppError('validation_failed', `${field}: is not a known field`, [
    { field, message: 'is not a known field' },
  ])
}

/**
 * The path of a `__proto__` key, or of a `constructor` key holding `prototype`, in `root` (what secure-json-parse
 * refuses). Breadth first with a queue, not recursion: 16 KiB of JSON nests 8,000 levels deep.
 */
function poisonedKey(root: unknown): string | undefined {
  const queue: { readonly value: unknown; readonly path: string }[] = [{ value: root, path: '' }]
  for (let i = 0; i < queue.length; i += 1) {
    const { value, path } = queue[i]!
    if (Array.isArray(value)) {
      value.forEach((item, n) => queue.push({ value: item, path: `${path}[${n}]` }))
    } else if (isObject(value)) {
      for (const key of Object.keys(value)) {
        const at = path === '' ? key : `${path}.${key}`
        const inner = value[key]
        if (key === '__proto__' || (key === 'constructor' && isObject(inner) && Object.hasOwn(inner, 'prototype')))
          return at
        queue.push({ value: inner, path: at })
      }
    }
  }
  return undefined
}

/**
 * The first key given twice in one object of `text`, which is valid JSON; undefined when there is none. One pass
 * over the characters (a create's body: about a microsecond), with the keys of each open object in a set.
 */
export function duplicateKey(text: string): string | undefined {
  const open: (Set<string> | undefined)[] = [] // one entry per open object (its keys) or array (undefined)
  let keyNext = false
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let end = i + 1
      let escaped = false
      for (; end < text.length && text.charCodeAt(end) !== QUOTE; end += 1) {
        if (text.charCodeAt(end) === BACKSLASH) {
          escaped = true
          end += 1
        }
      }
      if (end >= text.length) return undefined // not JSON: the parser refused it first
      if (keyNext) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end)
        const keys = open.at(-1)!
        if (keys.has(key)) return key
        keys.add(key)
        keyNext = false
      }
      i = end
    } else if (c === OPEN_BRACE) {
      open.push(new Set())
      keyNext = true
    } else if (c === OPEN_BRACKET) {
      open.push(undefined)
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      open.pop()
    } else if (c === COMMA) {
      keyNext = open.at(-1) !== undefined
    }
  }
  return undefined
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
