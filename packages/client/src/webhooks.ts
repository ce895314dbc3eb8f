import { Webhook } from 'standardwebhooks'
import type { WebhookEvent } from './types.js'

/** Request headers as Node (IncomingHttpHeaders), the Fetch API (Headers) or a plain object give them. */
export type HeadersLike = Headers | Readonly<Record<string, string | readonly string[] | undefined>>

/** The webhook could not be verified: a bad or missing signature, a stale timestamp, or a body that is not JSON. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
}

/**
 * verifyWebhook was given no usable secret (undefined, empty, not a string — typically an environment variable that
 * is not set): a configuration error of the receiver, not a bad request, so it is not a WebhookVerificationError.
 * Answer 500 for it (the service retries the delivery) and fix the configuration.
 */
export class WebhookSecretError extends Error {
  override readonly name = 'WebhookSecretError'
}

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const
const UTF8 = new TextDecoder('utf-8', { fatal: false })

function headerOf(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return Array.isArray(value) ? value.join(' ') : (value as string | undefined)
}

/**
 * Verifies a webhook request the Standard Webhooks way and returns its event.
 *
 * - `body`: the raw request body, exactly as received — before any JSON parsing. A body parsed and serialized again
 *   is not guaranteed to be the same bytes (it may verify in a test and fail on another event), and a parsed object
 *   is refused.
 * - `headers`: the request's headers (`webhook-id`, `webhook-timestamp`, `webhook-signature` are read).
 * - `secret`: your webhook secret, `whsec_…`; several during your own rollout of a rotated secret.
 *
 * Checks the HMAC-SHA256 signature (any of the space-separated `v1,` signatures may match, so both the old and the
 * new secret verify during a rotation) and that `webhook-timestamp` is within 5 minutes of now (replays).
 * Throws WebhookVerificationError otherwise. The same event can arrive more than once: deduplicate by `webhook-id`.
 * Throws WebhookSecretError, before looking at the request, when `secret` is missing, empty or not a string.
 */
export function verifyWebhook(
  body: string | ArrayBuffer | ArrayBufferView,
  headers: HeadersLike,
  secret: string | readonly string[],
): WebhookEvent {
  const secrets = secretsOf(secret)
  // Bytes in any form (a Buffer, also another realm's; `await request.arrayBuffer()`; a DataView) are decoded. From
  // plain JavaScript a body already parsed (express.json()) gets here too: refused as unverifiable.
  let payload: string
  if (typeof body === 'string') payload = body
  else if (ArrayBuffer.isView(body))
    payload = UTF8.decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength))
  else if (Object.prototype.toString.call(body) === '[object ArrayBuffer]') payload = UTF8.decode(new Uint8Array(body))
  else
    throw new WebhookVerificationError('the body must be the raw request body (a string or bytes), not a parsed object')
  const wanted: Record<string, string> = {}
  for (const name of HEADERS) {
    const value = headerOf(headers, name)
    if (value === undefined || value === '') throw new WebhookVerificationError(`missing ${name} header`)
    wanted[name] = value
  }
  let lastError: unknown
  for (const s of secrets) {
    try {
      return new Webhook(s).verify(payload, wanted) as WebhookEvent
    } catch (err) {
      lastError = err
    }
  }
  const reason = lastError instanceof Error ? lastError.message : 'the signature does not match'
  throw new WebhookVerificationError(reason, { cause: lastError })
}

/** The secrets to try; WebhookSecretError when there is none usable (from plain JavaScript anything can get here). */
function secretsOf(secret: unknown): readonly string[] {
  const hint = 'pass your webhook secret (whsec_…), e.g. from an environment variable that is set'
  const describe = (value: unknown): string =>
    value === undefined || value === null ? String(value) : typeof value === 'string' ? 'an empty string' : typeof value
  const list: readonly unknown[] = Array.isArray(secret) ? secret : [secret]
  if (list.length === 0) throw new WebhookSecretError(`verifyWebhook: no webhook secret given (an empty list): ${hint}`)
  for (const s of list) {
    if (typeof s !== 'string' || s.trim() === '')
      throw new WebhookSecretError(`verifyWebhook: no webhook secret given (got ${describe(s)}): ${hint}`)
  }
  return list as readonly string[]
}
