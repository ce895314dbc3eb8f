import { Webhook } from 'standardwebhooks'
import type { WebhookEvent } from './types.js'

/** Request headers as Node (IncomingHttpHeaders), the Fetch API (Headers) or a plain object give them. */
export type HeadersLike = Headers | Readonly<Record<string, string | readonly string[] | undefined>>

/** The webhook could not be verified: a bad or missing signature, a stale timestamp, or a body that is not JSON. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
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
 */
export function verifyWebhook(
  body: string | ArrayBuffer | ArrayBufferView,
  headers: HeadersLike,
  secret: string | readonly string[],
): WebhookEvent {
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
  const secrets = typeof secret === 'string' ? [secret] : secret
  if (secrets.length === 0) throw new WebhookVerificationError('no webhook secret given')
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
