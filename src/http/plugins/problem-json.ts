/**
 * The mapping of errors to RFC 9457 problems (docs/api.md#errors), and the handlers that send them: the document is
 * ./problem.ts, the schema errors' wording ./validation-messages.ts, the requests node's parser refuses
 * ./client-errors.ts.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, validationFailed } from '../../domain/errors.js'
import { StoreUnavailableError } from '../../ports/store.js'
import { noteAnswered } from './client-errors.js'
import { outsideB7, problemOf, type Problem } from './problem.js'
import { validationProblem } from './validation-messages.js'

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  noteAnswered(reply.request.raw)
  return reply.code(problem.status).type('application/problem+json').send(problem)
}

/** What a page scope shows a person instead of the problem document (the dashboard's error page). */
export type ProblemPage = (request: FastifyRequest, problem: Problem) => string

/**
 * The error handler: the error mapped to its problem (one mapping for the API and the pages), logged when it is the
 * service's or an acquirer's fault, and sent as the problem document — or, given `page`, to a client that asks for
 * HTML (a browser), as that page with the same status and code.
 */
export function problemHandler(page?: ProblemPage) {
  return (err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const problem = toProblem(err, request)
    if (problem.code === 'provider_error' || problem.code === 'provider_unavailable') {
      // an acquirer's refusal or outage (docs/providers.md#errors) is expected: a warning with its message, no stack
      request.log.warn({ code: problem.code, detail: problem.detail }, 'acquirer did not do it; nothing changed')
      if (problem.code === 'provider_unavailable') reply.header('retry-after', '5')
    } else if (problem.status >= 500) {
      request.log.error({ err }, problem.code === 'unavailable' ? 'storage unavailable' : 'unhandled error')
      if (problem.code === 'unavailable') reply.header('retry-after', '1')
    }
    if (page !== undefined && /\btext\/html\b/.test(request.headers.accept ?? '')) {
      noteAnswered(request.raw)
      return reply.code(problem.status).type('text/html; charset=utf-8').send(page(request, problem))
    }
    return sendProblem(reply, problem)
  }
}

/** An HTTP/1.1 request without Host (RFC 9112 §3.2), which the service answers 400 (the hook below). */
export function hostMissing(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1
}

/**
 * The only place errors become HTTP responses (RFC 9457, docs/api.md#errors). Framework errors are mapped to the
 * contract's codes; anything unexpected is logged with the request id and answered 500 without internals.
 */
export function registerProblemJson(app: FastifyInstance): void {
  app.setErrorHandler(problemHandler())

  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, problemOf('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`))
  })

  // An HTTP/1.1 request without Host (RFC 9112 §3.2: 400). Node answers it itself unless told not to
  // (requireHostHeader: false, build-app.ts), with a bare 400 outside docs/api.md#errors: no problem document, no x-request-id.
  app.addHook('onRequest', (request, reply, done) => {
    if (!hostMissing(request.raw)) return done()
    reply.header('connection', 'close')
    done(validationFailed([{ field: 'host', message: 'is required in HTTP/1.1' }]))
  })

  // An Expect other than 100-continue: node would answer a bare 417 of its own.
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const id = randomUUID()
    const body = outsideB7(
      417,
      problemOf('validation_failed', 'only Expect: 100-continue is supported', [
        { field: 'expect', message: 'must be 100-continue' },
      ]),
    )
    // not its value: whatever a client puts in a header (a key, by mistake) stays out of the logs
    app.log.debug({ reqId: id }, 'HTTP request refused: unsupported Expect')
    res
      .writeHead(417, {
        'content-type': 'application/problem+json',
        'content-length': Buffer.byteLength(body),
        'x-request-id': id,
        connection: 'close',
      })
      .end(body)
  })
}

/**
 * Fastify's `frameworkErrors`: the errors its router raises before any route or hook runs, which it would otherwise
 * answer itself with a plain `application/json` body outside docs/api.md#errors — a path parameter over the router's length limit
 * (414 FST_ERR_MAX_PARAM_LENGTH: no id is that long, so nothing is there) and a malformed percent-encoding in the
 * path (400 FST_ERR_BAD_URL).
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
  const path = request.url.split('?')[0] ?? ''
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendProblem(reply, problemOf('not_found', `no resource at ${path.slice(0, 200)}: a path segment is too long`))
  } else if (err.code === 'FST_ERR_BAD_URL') {
    sendProblem(
      reply,
      problemOf('validation_failed', 'the URL path is not validly percent-encoded', [
        { field: 'path', message: 'is not validly percent-encoded' },
      ]),
    )
  } else {
    sendProblem(reply, toProblem(err, request))
  }
}

function toProblem(err: FastifyError | AppError | Error, request: FastifyRequest): Problem {
  if (err instanceof AppError) return problemOf(err.code, err.message, err.errors)
  if (err instanceof StoreUnavailableError) return problemOf('unavailable', 'storage is unavailable; retry shortly')
  const fe = err as FastifyError
  if (fe.validation !== undefined) return validationProblem(fe)
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problemOf('invalid_json', 'the body is not valid JSON')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problemOf('payload_too_large', 'the body exceeds 16 KiB')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request)
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problemOf('validation_failed', 'Content-Length does not match the body')
    default:
      break
  }
  // JSON syntax errors from the parser surface as SyntaxError with statusCode 400.
  if (err instanceof SyntaxError || (fe.statusCode === 400 && /JSON/i.test(err.message))) {
    return problemOf('invalid_json', 'the body is not valid JSON')
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 413) return problemOf('payload_too_large', 'the body exceeds 16 KiB')
    if (fe.statusCode === 415) return unsupportedMediaType(request)
    if (fe.statusCode === 404) return problemOf('not_found', 'not found')
    return problemOf('validation_failed', 'the request is malformed')
  }
  return problemOf('internal_error', `an internal error occurred; quote request id ${request.id} to the operator`)
}

/**
 * 415: the body types the route's own scope parses. The payment page's scope also parses HTML forms (its test
 * controls post them); every other route takes JSON only.
 */
function unsupportedMediaType(request: FastifyRequest): Problem {
  const takesForms = request.server.hasContentTypeParser('application/x-www-form-urlencoded')
  return problemOf(
    'unsupported_media_type',
    takesForms
      ? 'send the body as application/json or application/x-www-form-urlencoded'
      : 'send the body as application/json',
  )
}
