import { IncomingMessage } from 'node:http'
import type { Invoice } from '../../domain/invoice.js'
import type { Admission } from '../../ports/rate-limiter.js'

/**
 * A request a fast path (create-fast-path.ts) began and gives to the framework to answer, with what it already did
 * that must not be done twice: the key's token it took (the API key hook, auth.ts, uses it instead of taking
 * another) and the create it ran (the create route answers its outcome instead of creating again).
 */
export interface HandedOver {
  readonly admission: Admission | undefined
  readonly created: Promise<{ readonly invoice: Invoice; readonly isNew: boolean }> | undefined
  /** performance.now() when the request arrived: its access-log line and metrics count from there. */
  readonly arrived: number
}

const handed = new WeakMap<IncomingMessage, HandedOver>()

/** What a fast path did before it handed `req` to the framework; undefined for every other request. */
export function handedOver(req: IncomingMessage): HandedOver | undefined {
  return handed.get(req)
}

/**
 * How long a request has taken, in ms, for its access-log line and metrics: from its arrival at the fast path when
 * one handed it over (the body read, perhaps the create run), else the framework's own `elapsed`.
 */
export function elapsedMs(req: IncomingMessage, elapsed: number): number {
  const done = handed.get(req)
  return done === undefined ? elapsed : performance.now() - done.arrived
}

/** An IncomingMessage whose body is given, not read from its socket. */
class Replayed extends IncomingMessage {
  override _read(): void {
    // the body was pushed whole at its making
  }
}

/**
 * The request `req` as it came (method, URL, headers, socket), its body `body` read by a fast path, for the
 * framework's listener to read again as if from the socket (as `app.inject` gives the same listener a request made
 * in memory). `req` itself is read to its end and cannot be.
 */
export function replay(req: IncomingMessage, body: Buffer, done: HandedOver): IncomingMessage {
  const copy = new Replayed(req.socket)
  copy.method = req.method
  copy.url = req.url
  copy.headers = req.headers
  // copied too: a message not filled by Node's parser does not build it from rawHeaders (hand-over.test.ts)
  copy.headersDistinct = req.headersDistinct
  copy.rawHeaders = req.rawHeaders
  copy.httpVersion = req.httpVersion
  copy.httpVersionMajor = req.httpVersionMajor
  copy.httpVersionMinor = req.httpVersionMinor
  // whole: an IncomingMessage destroyed (as a read one is, at its end) while not `complete` destroys its socket
  copy.complete = true
  copy.push(body)
  copy.push(null)
  handed.set(copy, done)
  return copy
}
