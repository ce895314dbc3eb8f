import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SIGN_IN_LIMITS } from '../domain/user.js'
import type { UserDeps } from './user-records.js'

/** How long a session, or a link, is kept after it can no longer be used (docs/dashboard.md#sessions). */
export const DASHBOARD_RECORDS_KEPT_MS = 30 * 24 * 3600_000

/**
 * Deletes what can never sign anyone in again (docs/dashboard.md#sessions): sessions over for 30 days (ended, idle
 * or past their absolute timeout), links expired for 30 days, and sign-in failure windows that are over. Up to
 * `limit` rows of each; returns how many rows went, so the sweeper runs it again while there are more.
 */
export async function purgeDashboardRecords(deps: UserDeps, limit: number): Promise<number> {
  const now = deps.clock.now().getTime()
  const kept = new Date(now - DASHBOARD_RECORDS_KEPT_MS)
  const longestWindow = Math.max(SIGN_IN_LIMITS.account.windowMs, SIGN_IN_LIMITS.address.windowMs)
  const { store } = deps
  const sessions = await store.transaction((tx) => tx.sessions.purge(kept, SESSION_IDLE_MS, SESSION_ABSOLUTE_MS, limit))
  const links = await store.transaction((tx) => tx.userLinks.purge(kept, limit))
  const windows = await store.transaction((tx) => tx.signInThrottle.purge(new Date(now - longestWindow), limit))
  return Math.max(sessions, links, windows)
}
