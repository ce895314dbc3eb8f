import type { MerchantId } from '../domain/ids.js'
import type { WebhookResponse } from '../ports/webhook-transport.js'
import type { AttemptResult } from '../ports/webhook-metrics.js'
import type { AppDeps } from './deps.js'

export const USER_AGENT = 'merchant-invoice-service-webhooks/1'

type SendDeps = Pick<AppDeps, 'store' | 'webhooks'>

/**
 * Signs and sends one webhook the Standard Webhooks way (docs/webhooks.md#headers-and-signature): `webhook-id` (stable across retries),
 * `webhook-timestamp` (Unix seconds of this attempt), `webhook-signature` with one `v1,` signature per secret
 * that signs now — the current one and, during a rotation's grace period, the previous one too.
 */
export async function sendSigned(
  deps: SendDeps,
  msg: { merchantId: MerchantId; messageId: string; url: string; body: string; at: Date; signal?: AbortSignal },
): Promise<WebhookResponse> {
  const secrets = await deps.store.webhookSecrets.listActive(msg.merchantId, msg.at)
  if (secrets.length === 0) {
    // a merchant is created with a secret and a rotation adds one before retiring the old: not expected
    return {
      statusCode: null,
      latencyMs: 0,
      error: 'not sent: the merchant has no active webhook secret',
      failure: 'refused',
      aborted: false,
    }
  }
  const timestamp = Math.floor(msg.at.getTime() / 1000)
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': msg.messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': deps.webhooks.signer.signature(
      secrets.map((s) => s.secret),
      msg.messageId,
      timestamp,
      msg.body,
    ),
  }
  return deps.webhooks.transport.send({
    url: msg.url,
    headers,
    body: msg.body,
    timeoutMs: deps.webhooks.timeoutMs,
    ...(msg.signal !== undefined && { signal: msg.signal }),
  })
}

/** The delivery log's `error` of an attempt: null when it succeeded, else why not (never a secret). */
export function attemptError(res: WebhookResponse): string | null {
  const code = res.statusCode
  if (code === null) return res.error ?? 'no answer'
  if (code >= 200 && code <= 299) return null
  if (code === 410) return 'HTTP 410 Gone: the endpoint asked for no further attempts'
  // 304 Not Modified is a 3xx but no redirect
  if (code >= 300 && code <= 399 && code !== 304) return `HTTP ${code}: redirects are not followed`
  return `HTTP ${code}`
}

export function attemptResult(res: WebhookResponse): AttemptResult {
  if (res.statusCode !== null) return res.statusCode >= 200 && res.statusCode <= 299 ? 'success' : 'http_error'
  if (res.failure === 'timeout') return 'timeout'
  if (res.failure === 'refused') return 'refused'
  return 'network_error'
}
