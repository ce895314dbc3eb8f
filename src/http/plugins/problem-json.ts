import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  AppError,
  ERROR_STATUS,
  validationFailed,
  withArticle,
  type ErrorCode,
  type FieldError,
} from '../../domain/errors.js'
import { StoreUnavailableError } from '../../ports/store.js'

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

export interface Problem {
  type: 'about:blank'
  title: string
  status: number
  code: ErrorCode
  detail: string
  errors?: readonly FieldError[]
}

export function problemOf(code: ErrorCode, detail: string, errors?: readonly FieldError[]): Problem {
  const status = ERROR_STATUS[code]
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, code, detail, ...(errors && { errors }) }
}

/**
 * Requests answered before their body arrived in full (a missing key is refused before the body is read): node then
 * reads and drops the rest of the body so the connection can carry the next request. If the rest never comes, the
 * request timeout must close the connection without answering that request a second time (`clientErrors`).
 */
const answeredBeforeTheirBody = new WeakSet<IncomingMessage>()

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  const raw = reply.request.raw
  if (!raw.complete) answeredBeforeTheirBody.add(raw)
  return reply.code(problem.status).type('application/problem+json').send(problem)
}

/**
 * The only place errors become HTTP responses (RFC 9457, API.md B7). Framework errors are mapped to the
 * contract's codes; anything unexpected is logged with the request id and answered 500 without internals.
 */
export function registerProblemJson(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const problem = toProblem(err, request)
    if (problem.status >= 500) {
      request.log.error({ err }, problem.code === 'unavailable' ? 'storage unavailable' : 'unhandled error')
      if (problem.code === 'unavailable') reply.header('retry-after', '1')
    }
    return sendProblem(reply, problem)
  })

  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, problemOf('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`))
  })

  // An HTTP/1.1 request without Host (RFC 9112 §3.2: 400). Node answers it itself unless told not to
  // (requireHostHeader: false, build-app.ts), with a bare 400 outside B7: no problem document, no x-request-id.
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw
    if (raw.headers.host !== undefined || raw.httpVersionMajor !== 1 || raw.httpVersionMinor !== 1) return done()
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
 * answer itself with a plain `application/json` body outside B7 — a path parameter over the router's length limit
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

/**
 * Fastify's `clientErrorHandler`: a request node's HTTP parser refused before Fastify saw it (a malformed request
 * line or header, headers over the 16 KiB node allows, a request that did not arrive in time). Fastify would answer
 * a plain `application/json` body without `x-request-id`; this answers a B7 problem with one, then closes the
 * connection as node does (what follows on it cannot be parsed). The status stays what HTTP says (431 for large
 * headers, 408 for a timeout); the code is the contract's nearest. The refused request never reached the service.
 */
export function clientErrors(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || refused.has(socket)) return
  // The request whose body did not come in time was answered already (before its body): a second answer would be
  // read by the client as the answer to its next request. Only the connection is closed.
  const incoming = (socket as Duplex & { parser?: { incoming?: IncomingMessage | null } | null }).parser?.incoming
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && incoming != null && answeredBeforeTheirBody.has(incoming)) {
    socket.destroy()
    return
  }
  const id = randomUUID()
  const [status, problem] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, problemOf('payload_too_large', 'the request headers are larger than 16 KiB')]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, problemOf('validation_failed', 'the request did not arrive in full in time')]
        : [400, problemOf('validation_failed', 'the request is not valid HTTP/1.1')]
  const body = outsideB7(status, problem)
  this.log.debug({ reqId: id, code: err.code }, 'HTTP request refused by the parser')
  const refuse = (): void => {
    if (!socket.writable) return void socket.destroy()
    refused.add(socket)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    )
    lingeringClose(socket)
  }
  // A client that pipelines may have sent good requests before the bad one on this connection: their answers are
  // still on their way (node's parser ran ahead, and answers are written a moment later). Closing now would lose
  // the answer to a request that did run (an invoice created, unanswered); they go first, then the refusal. Node
  // gives the socket to the next queued answer as one finishes ('finish': node's own listener, the first, detaches
  // the answer and attaches the next), so this waits for each in turn — but not for the refused request's own
  // answer (its body broke off, or never came in time). An attached answer has not emitted 'finish' yet, even when
  // all of it is written (`writableFinished`): a queued answer that was complete when it got the socket is; taking
  // that as the last one closed the connection before the answers queued behind it.
  const afterAnswers = (): void => {
    const answering = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
    if (answering == null || !answering.req.complete) return refuse()
    const next = (): void => {
      answering.off('finish', next)
      answering.off('close', next)
      afterAnswers()
    }
    answering.once('finish', next)
    answering.once('close', next)
  }
  afterAnswers()
}

/** Connections answered by `clientErrors` and closing: what the parser still says of them is not answered again. */
const refused = new WeakSet<Duplex>()

/** How long a refused connection may keep sending before it is cut. */
const LINGER_MS = 2000

/**
 * Closes a connection whose answer was just written without losing that answer. Destroying it at once, while the
 * client is still sending (a body dripping in, pipelined requests), makes the kernel reset the connection for the
 * unread bytes, and a reset can discard the answer before the client reads it (the client sees ECONNRESET, not the
 * 408). So: send FIN after the answer, read and drop what still comes, and destroy when the client closes too or
 * after LINGER_MS, whichever is first (the lingering close of HTTP servers such as nginx).
 */
function lingeringClose(socket: Duplex): void {
  const cut = setTimeout(() => socket.destroy(), LINGER_MS)
  cut.unref()
  socket.once('close', () => clearTimeout(cut))
  socket.on('end', () => socket.destroy())
  socket.on('data', () => {})
  socket.end()
  socket.resume()
}

/**
 * The body of a problem answered with a status B7 does not pair with its code (408, 417, 431: what HTTP says, the
 * contract's nearest code), written outside Fastify's reply.
 */
function outsideB7(status: number, problem: Problem): string {
  return JSON.stringify({ ...problem, status, title: STATUS_CODES[status] ?? problem.title })
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

interface AjvError {
  instancePath?: string
  keyword?: string
  message?: string
  params?: Record<string, unknown>
}

/** Turns schema errors into field errors that name the field ("callback_urll: is not a known field"). */
function validationProblem(err: FastifyError): Problem {
  const where = err.validationContext ?? 'body'
  const found: { error: FieldError; keyword: string | undefined; type: unknown }[] = []
  for (const e of (err.validation ?? []) as AjvError[]) {
    const path = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
    let error: FieldError
    if (e.keyword === 'additionalProperties') {
      const extra = String(e.params?.['additionalProperty'] ?? '')
      error = { field: path === '' ? extra : `${path}.${extra}`, message: 'is not a known field' }
    } else if (e.keyword === 'required') {
      const missing = String(e.params?.['missingProperty'] ?? '')
      error = { field: path === '' ? missing : `${path}.${missing}`, message: 'is required' }
    } else if (e.keyword === 'type' && path === '' && where === 'body') {
      error = { field: '(body)', message: 'must be a JSON object' }
    } else {
      error = { field: path === '' ? where : path, message: friendly(e) }
    }
    found.push({ error, keyword: e.keyword, type: e.params?.['type'] })
  }
  const unique = onePerField(found)
  const detail = unique.map((e) => `${e.field}: ${e.message}`).join('; ')
  return problemOf('validation_failed', detail, unique)
}

/**
 * One error per field, for a readable answer. A union (`anyOf`: the amount, a number or a string) reports an error
 * for each of its branches. When one branch had the right type and broke a rule of its own (a string over its
 * length), that rule is the answer, not the other branch's "must be a number"; when every branch failed on its
 * type alone, their types together are ("must be a number or a string"). Otherwise the first error stands.
 */
function onePerField(
  found: readonly { error: FieldError; keyword: string | undefined; type: unknown }[],
): FieldError[] {
  const byField = new Map<string, (typeof found)[number][]>()
  for (const f of found) {
    const same = byField.get(f.error.field)
    if (same === undefined) byField.set(f.error.field, [f])
    else same.push(f)
  }
  return [...byField.values()].map((all) => {
    const first = all[0]!.error
    const rule = all.find((f) => f.keyword !== 'type' && f.keyword !== 'anyOf')
    if (all.length === 1 || rule !== undefined) return (rule ?? all[0]!).error
    const types = all.filter((f) => f.keyword === 'type').map((f) => String(f.type))
    return types.length > 1 ? { field: first.field, message: mustBe(types) } : first
  })
}

/** "must be a number", "must be a number or a string": the JSON types a value must have. */
function mustBe(types: readonly string[]): string {
  return `must be ${types.map(withArticle).join(' or ')}`
}

function friendly(e: AjvError): string {
  switch (e.keyword) {
    case 'maxLength':
      return `must be at most ${String(e.params?.['limit'])} characters`
    case 'minLength':
      return `must be at least ${String(e.params?.['limit'])} characters`
    case 'type':
      return mustBe(String(e.params?.['type']).split(','))
    case 'anyOf':
      return 'has the wrong type'
    default:
      return e.message ?? 'is invalid'
  }
}
