/**
 * create's fast path (docs/performance.md#the-fast-paths): `POST /api/v1/invoices` answered on the HTTP server's own
 * `request` event, before the framework, when the answer is a 201 or a 200 (docs/api.md#create-an-invoice).
 *
 * Through Fastify a create spent about a fifteenth of its CPU on the framework's own road (routing, the request and
 * reply objects, the hook chains, the body's way through the content-type parser, serialization), no one piece of it
 * large. Here
 * the same request takes the same steps, called directly: the address's failed-authentication window and the API
 * key (fast-path.ts, as getInfo's), the body read and parsed by the framework's own JSON parser
 * (plugins/json-body.ts), checked by the route's schema as the framework compiled it, the key's token, the create
 * use case, the route's answer (routes/invoices.ts), the same headers, access-log line and metrics.
 *
 * Every refusal is still the framework's answer (plugins/problem-json.ts), in two ways:
 * - before the body is read (a request not plainly a JSON create, a blocked address, a refused key), the request is
 *   handed over untouched, as getInfo's fast path does;
 * - after it (a body the parser or the schema refuses, a token refused, a create that failed, the app closing while
 *   it ran), the framework is given a replay of the request: the same method, URL, headers and socket, with the
 *   body already read (plugins/hand-over.ts). What was done is carried with it and not done twice: the token taken
 *   is the API key hook's (plugins/auth.ts), the create's outcome is the route's (routes/invoices.ts).
 * test/api/create-fast-path.test.ts checks over real sockets that the fast path and the framework answer alike.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Static } from '@sinclair/typebox'
import { AppError } from '../domain/errors.js'
import type { Invoice } from '../domain/invoice.js'
import type { MaybePromise } from '../domain/maybe-promise.js'
import type { Admission } from '../ports/rate-limiter.js'
import type { HttpDeps } from './deps.js'
import {
  keyAdmitted,
  rateLimitValues,
  writeJsonAnswer,
  type FastPathDeps,
  type KeyAdmitted,
  type RequestListener,
} from './fast-path.js'
import { replay, type HandedOver } from './plugins/hand-over.js'
import { parseJsonBody } from './plugins/json-body.js'
import { hostMissing } from './plugins/problem-json.js'
import { createCommand, type createdAnswer } from './routes/invoices.js'
import type { CreateInvoiceBody } from './schemas/invoices.js'

export interface CreateFastPathDeps extends FastPathDeps {
  readonly create: HttpDeps['invoices']['create']
  /** The route's answer to a create's outcome (routes/invoices.ts). */
  readonly answer: (invoice: Invoice, isNew: boolean) => ReturnType<typeof createdAnswer>
  /** The framework's body limit: a longer body is its 413. */
  readonly bodyLimit: number
  /** The route's body schema as the framework compiled it; undefined until the app is ready. */
  readonly validator: () => ((body: unknown) => boolean) | undefined
  /** The fields the JSON parser keeps the number text of (build-app.ts). */
  readonly exactNumbers: readonly string[]
}

/** The route, as the framework's metrics name it. */
export const CREATE_ROUTE = '/api/v1/invoices'
/** The content types a client library sends; any other (even one the framework would take) goes to the framework. */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8'])
const DIGITS = /^[0-9]{1,9}$/

/**
 * The server's `request` listener: answers a plain create itself, and gives every other request (and any create a
 * step refuses) to `framework`, the app's own listener.
 */
export function createFastPath(deps: CreateFastPathDeps, framework: RequestListener): RequestListener {
  const limiter = deps.limiter
  const served = {
    200: deps.metrics.recorder('POST', CREATE_ROUTE, 200),
    201: deps.metrics.recorder('POST', CREATE_ROUTE, 201),
  }

  /** The request, its body read, given to the framework with what was done (plugins/hand-over.ts). */
  const handOver = (req: IncomingMessage, res: ServerResponse, raw: Buffer, done: HandedOver): void =>
    framework(replay(req, raw, done), res)
  /** What was done by the time a request that arrived at `arrived` is handed over: the token taken, the create run. */
  const doneSoFar = (
    arrived: number,
    admission: Admission | undefined = undefined,
    created: HandedOver['created'] = undefined,
  ): HandedOver => ({ admission, created, arrived })

  /** The steps after the body: parsed, checked, a token, the create; each refusal handed over. */
  const withBody = (
    req: IncomingMessage,
    res: ServerResponse,
    key: KeyAdmitted,
    raw: Buffer,
    started: number,
  ): void => {
    const validate = deps.validator()
    const parsed = parseJsonBody(raw, deps.exactNumbers)
    if (validate === undefined || parsed instanceof AppError || !validate(parsed.body)) {
      handOver(req, res, raw, doneSoFar(started))
      return
    }
    const body = parsed.body as Static<typeof CreateInvoiceBody>
    const took = (admission: Admission | undefined): void => {
      const ratelimit = rateLimitValues(admission)
      if (ratelimit === false) {
        handOver(req, res, raw, doneSoFar(started, admission))
        return
      }
      const created = deps.create(key.auth.merchant, createCommand(body))
      const done = doneSoFar(started, admission, created)
      created.then(
        ({ invoice, isNew }) =>
          guarded(
            () => handOver(req, res, raw, done),
            () => {
              if (deps.closing()) {
                handOver(req, res, raw, done)
                return
              }
              const answer = deps.answer(invoice, isNew)
              deps.batching.later(() =>
                writeJsonAnswer(
                  deps.log,
                  served[answer.status],
                  req,
                  res,
                  answer.status,
                  JSON.stringify(answer.body),
                  ratelimit,
                  started,
                ),
              )
            },
          ),
        () => handOver(req, res, raw, done),
      )
    }
    const admission = limiter?.takeForKey(key.auth.keyId, key.ip)
    if (admission instanceof Promise)
      admission.then(
        (a) =>
          guarded(
            () => handOver(req, res, raw, doneSoFar(started, a)),
            () => took(a),
          ),
        () => handOver(req, res, raw, doneSoFar(started)),
      )
    else took(admission)
  }

  const readBody = (req: IncomingMessage, res: ServerResponse, key: KeyAdmitted, started: number): void => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
    })
    // a client gone before its whole body: nobody to answer (the framework answers none either)
    req.on('error', () => res.destroy())
    req.on('end', () => {
      const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)
      guarded(
        () => handOver(req, res, raw, doneSoFar(started)),
        () => withBody(req, res, key, raw, started),
      )
    })
  }

  /**
   * `step`, and should it throw (it should not), the request handed over as it stands by `handOverNow`: untouched
   * before its body was read, else replayed with what was done.
   */
  const guarded = (handOverNow: () => void, step: () => void): void => {
    try {
      step()
    } catch (err) {
      deps.log.error({ err }, 'a create on the fast path failed; the framework answers it')
      handOverNow()
    }
  }

  return (req, res) => {
    if (req.method !== 'POST' || req.url !== CREATE_ROUTE || !plainJsonBody(req, deps.bodyLimit) || deps.closing()) {
      framework(req, res)
      return
    }
    const started = performance.now()
    deps.batching.arrived()
    let key: MaybePromise<KeyAdmitted | undefined>
    try {
      key = keyAdmitted(deps, req)
    } catch {
      framework(req, res) // a refused key: the framework authenticates it again and counts the failure
      return
    }
    const admitted = (k: KeyAdmitted | undefined): void => {
      if (k === undefined) framework(req, res)
      else readBody(req, res, k, started)
    }
    if (key instanceof Promise)
      key.then(
        (k) =>
          guarded(
            () => framework(req, res),
            () => admitted(k),
          ),
        () => framework(req, res),
      )
    else admitted(key)
  }
}

/**
 * A body the fast path takes: a JSON type a client library sends, a Content-Length of at most the body limit and
 * more than nothing (no chunked body), a Host (an HTTP/1.1 request without one is the framework's 400).
 */
function plainJsonBody(req: IncomingMessage, bodyLimit: number): boolean {
  const h = req.headers
  const length = h['content-length']
  return (
    length !== undefined &&
    DIGITS.test(length) &&
    Number(length) > 0 &&
    Number(length) <= bodyLimit &&
    h['transfer-encoding'] === undefined &&
    JSON_TYPES.has(h['content-type'] ?? '') &&
    !hostMissing(req)
  )
}
