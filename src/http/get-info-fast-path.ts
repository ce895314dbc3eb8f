/**
 * getInfo's fast path (docs/performance.md#getinfos-fast-path): the service's most frequent request answered on
 * the HTTP server's own `request` event, before the framework, when the answer is a plain 200.
 *
 * A getInfo through Fastify spends about a third of its CPU in the framework itself (routing, the request and reply
 * objects, the hook chains, query parsing and validation, serialization), no one piece of it large. Here the same
 * request is answered by the same steps, called directly: the address's failed-authentication window, the
 * API key's authentication, the getInfo use case, the key's token bucket, the invoice's view, the same headers, the
 * same access-log line and metrics, written with the other answers of its pass (plugins/write-batching.ts).
 *
 * It answers only what it is sure of, and hands everything else to the framework untouched, so the framework stays
 * the one place that decides every other answer and every error (plugins/problem-json.ts):
 * - only `GET /api/invoice/getInfo?…` whose query has no percent-encoding, no `+`, a value for each parameter and
 *   no parameter twice, with a Host, no body, while the app is not closing;
 * - and only when every step admits it: the address not blocked, the key authenticated, the use case's invoice
 *   found, a token taken. A step that refuses hands the request over, and the framework takes every step again and
 *   answers the refusal. The steps before the token change nothing the framework's own steps would count twice
 *   (a failed authentication is counted by the framework's step, not here); the token is taken last, and a refused
 *   take takes none.
 * The fast path is installed on the app's server (build-app.ts); `app.inject` goes to the framework, and
 * test/api/get-info-fast-path.test.ts checks over real sockets that both answer alike.
 */
import type { IncomingMessage } from 'node:http'
import type { GetInfoQuery } from '../app/get-invoice.js'
import type { InvoiceInfo } from '../domain/invoice-view.js'
import { andThen, type MaybePromise } from '../domain/maybe-promise.js'
import type { HttpDeps } from './deps.js'
import { invoiceToWire } from './dto.js'
import {
  keyAdmitted,
  rateLimitValues,
  writeJsonAnswer,
  type FastPathDeps,
  type RateLimitValues,
  type RequestListener,
} from './fast-path.js'
import { hostMissing } from './plugins/problem-json.js'

export interface GetInfoFastPathDeps extends FastPathDeps {
  readonly getInfo: HttpDeps['invoices']['getInfo']
  readonly now: () => Date
}

/** The route, as the framework's metrics name it. */
const ROUTE = '/api/invoice/getInfo'
const PREFIX = `${ROUTE}?`

/** A getInfo's answer, once every step has admitted it. */
interface Answer {
  readonly invoice: InvoiceInfo
  readonly ratelimit: RateLimitValues
}

/**
 * The server's `request` listener: answers a plain getInfo itself, and gives every other request (and any getInfo
 * a step refuses) to `framework`, the app's own listener.
 */
export function getInfoFastPath(deps: GetInfoFastPathDeps, framework: RequestListener): RequestListener {
  const limiter = deps.limiter
  // (a labelled series shows in /metrics from its first count on, not from here)
  const served = deps.metrics.recorder('GET', ROUTE, 200)

  /**
   * Every step, in the framework's order but with the token last, each taken at once when its answer is there (as
   * the framework's API key hook does, plugins/auth.ts); undefined, or a rejection: a step did not admit it.
   */
  const admitted = (req: IncomingMessage, query: GetInfoQuery): MaybePromise<Answer | undefined> =>
    andThen(keyAdmitted(deps, req), (key) => {
      if (key === undefined) return undefined
      return deps.getInfo(key.auth.merchant, query).then((invoice) =>
        andThen(limiter?.takeForKey(key.auth.keyId, key.ip), (admission): Answer | undefined => {
          const ratelimit = rateLimitValues(admission)
          return ratelimit === false ? undefined : { invoice, ratelimit }
        }),
      )
    })

  return (req, res) => {
    const url = req.url ?? ''
    const query = req.method === 'GET' && url.startsWith(PREFIX) ? plainQuery(url) : undefined
    if (query === undefined || !bodyless(req) || deps.closing()) {
      framework(req, res)
      return
    }
    const started = performance.now()
    deps.batching.arrived()
    const answered = (answer: Answer | undefined): void => {
      if (answer === undefined) framework(req, res)
      else
        deps.batching.later(() => {
          const body = JSON.stringify(invoiceToWire(answer.invoice, deps.now()))
          writeJsonAnswer(deps.log, served, req, res, 200, body, answer.ratelimit, started)
        })
    }
    let answer: MaybePromise<Answer | undefined>
    try {
      answer = admitted(req, query)
    } catch {
      framework(req, res)
      return
    }
    if (answer instanceof Promise)
      answer
        .then(answered, () => framework(req, res))
        .catch((err: unknown) => {
          // the framework's listener answers its own errors; this only keeps one from ending the process
          deps.log.error({ err }, 'handing a getInfo to the framework failed')
          res.destroy()
        })
    else answered(answer)
  }
}

/**
 * The query of a getInfo URL when the fast path can read it as the framework would, else undefined: no
 * percent-encoding or `+` (decoded, and checked, by the framework: plugins/query-encoding.ts), every pair with a
 * `=`, none of getInfo's parameters twice. Other parameters are ignored, as the framework ignores them
 * (docs/api.md#getinfo).
 */
export function plainQuery(url: string): GetInfoQuery | undefined {
  if (url.includes('%', PREFIX.length) || url.includes('+', PREFIX.length)) return undefined
  let merchantId: string | undefined
  let invoiceId: string | undefined
  let orderId: string | undefined
  // pair by pair, read in place (no array of pairs): [at, end) is a pair, `eq` its '='
  for (let at = PREFIX.length; at <= url.length;) {
    let end = url.indexOf('&', at)
    if (end < 0) end = url.length
    const eq = url.indexOf('=', at)
    if (eq < 0 || eq > end) return undefined
    const value = url.slice(eq + 1, end)
    if (nameIs(url, at, eq, 'merchant_id')) {
      if (merchantId !== undefined) return undefined
      merchantId = value
    } else if (nameIs(url, at, eq, 'invoice_id')) {
      if (invoiceId !== undefined) return undefined
      invoiceId = value
    } else if (nameIs(url, at, eq, 'order_id')) {
      if (orderId !== undefined) return undefined
      orderId = value
    }
    at = end + 1
  }
  return { merchantId, invoiceId, orderId }
}

/** Whether url[at, eq) is `name`. */
function nameIs(url: string, at: number, eq: number, name: string): boolean {
  return eq - at === name.length && url.startsWith(name, at)
}

/** A request without a body, with a Host (an HTTP/1.1 request without one is the framework's 400). */
function bodyless(req: IncomingMessage): boolean {
  const h = req.headers
  return h['content-length'] === undefined && h['transfer-encoding'] === undefined && !hostMissing(req)
}
