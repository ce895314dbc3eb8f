/**
 * WebhookTransport over undici: one Agent (keep-alive connections per receiver) whose connector refuses
 * non-public addresses unless the operator allows them (address-guard.ts). `request` follows no redirects:
 * a 3xx comes back as an answer, which the policy treats as a failed attempt.
 */
import { performance } from 'node:perf_hooks'
import { Agent, request } from 'undici'
import type { WebhookRequest, WebhookResponse, WebhookTransport } from '../../ports/webhook-transport.js'
import { ADDRESS_REFUSED, guardedConnector } from './address-guard.js'

/** At most this much of an answer's body is read (and discarded) so its connection can be reused. */
const MAX_DRAIN_BYTES = 64 * 1024
/**
 * …and for at most this long once its status has come: the answer is known by then. A receiver that sent `200` and
 * then trickled its body held the delivery slot for the whole WEBHOOK_TIMEOUT, counted as answering all the while
 * (so with the whole share of the slots: five such merchants held all 80).
 */
const MAX_DRAIN_MS = 1000
/**
 * undici times a connect of over 1 s on a clock that ticks about every half second, so it ends up to that much
 * late; native timers (1 s and less) are on time.
 */
const CONNECT_TIMER_TICK_MS = 500

/** The connect timeout that ends a connect by `ms` (WEBHOOK_TIMEOUT), given how undici times it. */
export function connectTimeoutFor(ms: number): number {
  return ms > 1000 + CONNECT_TIMER_TICK_MS ? ms - CONNECT_TIMER_TICK_MS : Math.min(ms, 1000)
}

export interface UndiciTransportOptions {
  /** WEBHOOK_ALLOW_PRIVATE: skip the address check (local development, tests). */
  readonly allowPrivate: boolean
  /**
   * How long connecting (name lookup, TCP, TLS handshake) may take: WEBHOOK_TIMEOUT, the attempt's whole time, as
   * docs/webhooks.md#delivery says. The attempt's abort does not end a connect under way (undici), so this is what ends one: a
   * fixed 10 s held a slot for 10 s when WEBHOOK_TIMEOUT was shorter, and cut a slow handshake short when longer.
   */
  readonly connectTimeoutMs: number
}

export function createUndiciTransport(opts: UndiciTransportOptions): WebhookTransport {
  const connectTimeout = connectTimeoutFor(opts.connectTimeoutMs)
  const agent = new Agent({
    connect: opts.allowPrivate ? { timeout: connectTimeout } : guardedConnector({ timeoutMs: connectTimeout }),
    keepAliveTimeout: 4_000,
  })

  return {
    async send(req: WebhookRequest): Promise<WebhookResponse> {
      const started = performance.now()
      const elapsed = (): number => Math.round(performance.now() - started)
      // One controller, aborted by our own timer or by the caller's signal, both let go of when the attempt ends.
      // Not AbortSignal.timeout + AbortSignal.any: Node keeps that timer for the whole timeout (10 s and more) after
      // the answer, with a weak reference and a finalizer each, and each combined signal in a set of the caller's
      // until a full garbage collection. Under the soak's load on PostgreSQL, 61 of the 512 MB that reached V8's old
      // generation in 110 s were theirs; 25 MB are this controller's signals.
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), req.timeoutMs)
      timer.unref() // as AbortSignal.timeout's: an attempt under way does not by itself keep the process alive
      const onAbort = (): void => controller.abort(req.signal?.reason)
      if (req.signal?.aborted === true) onAbort()
      else req.signal?.addEventListener('abort', onAbort, { once: true })
      const signal = controller.signal
      let drain: NodeJS.Timeout | undefined
      try {
        const res = await request(req.url, {
          dispatcher: agent,
          method: 'POST',
          headers: { ...req.headers },
          body: req.body,
          signal,
        })
        const latencyMs = elapsed()
        // the answer is known: the body is read only so the connection can be reused, for a moment at most (an
        // abort then closes the connection instead)
        drain = setTimeout(() => controller.abort(), MAX_DRAIN_MS)
        drain.unref()
        await res.body.dump({ limit: MAX_DRAIN_BYTES, signal }).catch(() => undefined)
        return { statusCode: res.statusCode, latencyMs, error: null, failure: null, aborted: false }
      } catch (err) {
        const latencyMs = elapsed()
        if (req.signal?.aborted === true)
          return { statusCode: null, latencyMs, error: 'aborted: shutting down', failure: 'network', aborted: true }
        // not the caller's abort (just above), so our timer's
        if (signal.aborted) {
          return {
            statusCode: null,
            latencyMs,
            error: `timeout: no answer within ${req.timeoutMs / 1000} s`,
            failure: 'timeout',
            aborted: false,
          }
        }
        const refused = findCause(err, (e) => (e as { code?: unknown }).code === ADDRESS_REFUSED)
        if (refused !== undefined)
          return { statusCode: null, latencyMs, error: refused.message, failure: 'refused', aborted: false }
        return { statusCode: null, latencyMs, error: describeNetworkError(err), failure: 'network', aborted: false }
      } finally {
        clearTimeout(timer)
        clearTimeout(drain)
        req.signal?.removeEventListener('abort', onAbort)
      }
    },

    async close() {
      await agent.close()
    },
  }
}

function findCause(err: unknown, match: (e: Error) => boolean): Error | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if (match(e)) return e
  }
  return undefined
}

const KNOWN: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  UND_ERR_HEADERS_OVERFLOW: 'answer headers too large',
  CERT_HAS_EXPIRED: 'TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
}

/** A short, secret-free reason for the delivery log: the error code and what it means, not a stack. */
function describeNetworkError(err: unknown): string {
  const codeOf = (e: Error | undefined): string | undefined => {
    const code = (e as { code?: unknown } | undefined)?.code
    return typeof code === 'string' ? code : undefined
  }
  const known = codeOf(findCause(err, (e) => Object.hasOwn(KNOWN, codeOf(e) ?? '')))
  if (known !== undefined) return `${KNOWN[known] ?? known} (${known})`
  const other = codeOf(findCause(err, (e) => codeOf(e) !== undefined))
  if (other !== undefined) return `network error (${other})`
  return err instanceof Error ? `network error: ${err.message.slice(0, 200)}` : 'network error'
}
