/**
 * Requests node's HTTP parser refuses before Fastify sees them, answered as problems too, and the closing of their
 * connection without losing that answer.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { outsideB7, problemOf } from './problem.js'

/**
 * Requests answered before their body arrived in full (a missing key is refused before the body is read): node then
 * reads and drops the rest of the body so the connection can carry the next request. If the rest never comes, the
 * request timeout must close the connection without answering that request a second time (`clientErrors`).
 */
const answeredBeforeTheirBody = new WeakSet<IncomingMessage>()

/** Called as a request is answered (sendProblem): one answered before its body arrived in full is remembered. */
export function noteAnswered(request: IncomingMessage): void {
  if (!request.complete) answeredBeforeTheirBody.add(request)
}

/**
 * Fastify's `clientErrorHandler`: a request node's HTTP parser refused before Fastify saw it (a malformed request
 * line or header, headers over the 16 KiB node allows, a request that did not arrive in time). Fastify would answer
 * a plain `application/json` body without `x-request-id`; this answers a problem (docs/api.md#errors) with one, then closes the
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
  socket.end()
  socket.resume() // flowing with no reader of ours: what still arrives is read and dropped
}
