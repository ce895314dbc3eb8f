/** The webhook use cases, each with its dependencies given once (see ./invoices.ts). */
import type { AppDeps } from '../../app/deps.js'
import { dispatchCycle, sendClaimed } from '../../app/dispatch-webhooks.js'
import { listDeliveries } from '../../app/list-deliveries.js'
import { redeliver } from '../../app/redeliver.js'
import { releaseOrphanedClaims } from '../../app/release-orphaned-claims.js'
import { sendTestWebhook } from '../../app/send-test-webhook.js'

/** The merchant's webhook endpoints (docs/webhooks.md#delivery-log). */
export function bindWebhookUseCases(deps: AppDeps) {
  return {
    listDeliveries: listDeliveries.bind(null, deps),
    redeliver: redeliver.bind(null, deps),
    sendTest: sendTestWebhook.bind(null, deps),
  }
}

/** What the webhook dispatcher runs, and what a start on SQLite does first. */
export function bindWebhookDispatch(deps: AppDeps) {
  return {
    cycle: dispatchCycle.bind(null, deps),
    send: sendClaimed.bind(null, deps),
    releaseOrphanedClaims: releaseOrphanedClaims.bind(null, deps),
  }
}
