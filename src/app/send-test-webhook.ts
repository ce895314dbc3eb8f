import { webhookPayload } from '../domain/delivery.js'
import { validationFailed } from '../domain/errors.js'
import { callbackUrlProblem } from '../domain/invoice-request.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { attemptError, sendSigned } from './webhook-request.js'

export interface TestWebhookResult {
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
}

/**
 * POST /api/v1/webhooks/test (docs/webhooks.md#test-events): a `webhook.test` event sent to `url` now — signed like every webhook,
 * under the same address rules as a callback_url — and the answer reported. Nothing is stored or retried.
 */
export async function sendTestWebhook(
  deps: Pick<AppDeps, 'store' | 'clock' | 'newId' | 'webhooks' | 'callbackAllowHttp'>,
  merchant: Merchant,
  url: string,
): Promise<TestWebhookResult> {
  const problem = callbackUrlProblem(url, {
    callbackAllowHttp: deps.callbackAllowHttp,
    webhookAllowPrivate: deps.webhooks.allowPrivate,
  })
  if (problem !== undefined) throw validationFailed([{ field: 'url', message: problem }])
  const at = deps.clock.now()
  const body = webhookPayload('webhook.test', at, { merchant_id: merchant.id })
  const res = await sendSigned(deps, { merchantId: merchant.id, messageId: deps.newId(), url, body, at })
  return { statusCode: res.statusCode, latencyMs: res.latencyMs, error: attemptError(res) }
}
