import type { AppDeps } from './deps.js'

/**
 * At the start of a single-process deployment (SQLite): the webhook claims still recorded are those of a process
 * that died mid-attempt (SIGKILL, a crash, power loss). Given back, they are due at once — sent again, at least
 * once (docs/webhooks.md#delivery) — instead of after their lease (WEBHOOK_TIMEOUT + 30 s). Never call this where other
 * instances may be running (PostgreSQL): their live claims would be sent twice.
 */
export async function releaseOrphanedClaims(deps: Pick<AppDeps, 'store'>): Promise<number> {
  return deps.store.transaction((tx) => tx.deliveries.releaseAll())
}
