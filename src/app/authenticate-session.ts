import { AppError } from '../domain/errors.js'
import type { Merchant } from '../domain/merchant.js'
import { isSessionLive, type Session, type SessionStage, type User } from '../domain/user.js'
import type { UserDeps } from './user-records.js'

export interface SignedIn {
  readonly user: User
  readonly session: Session
  /** The user's merchant; null for an operator. */
  readonly merchant: Merchant | null
}

/** last_seen_at is written at most this often: a page view is not a write each time. */
const TOUCH_EVERY_MS = 60_000

/**
 * The session of a dashboard request's cookie (docs/dashboard.md#sessions): live (not ended, within the idle and
 * absolute timeouts) and at `stage`, else 401 `unauthenticated`. A user whose merchant is disabled is signed out.
 */
export async function authenticateSession(
  deps: UserDeps,
  token: string | undefined,
  stage: SessionStage = 'full',
): Promise<SignedIn> {
  if (token === undefined || token === '') throw signedOut()
  const now = deps.clock.now()
  const session = await deps.store.sessions.findByHash(deps.secrets.hashToken(token))
  if (session === undefined || session.stage !== stage || !isSessionLive(session, now)) throw signedOut()
  const user = await deps.store.users.findById(session.userId)
  if (user === undefined) throw signedOut()
  const merchant = user.merchantId === null ? null : ((await deps.store.merchants.findById(user.merchantId)) ?? null)
  if (user.merchantId !== null && merchant?.status !== 'active') throw signedOut()
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await deps.store.sessions.touch(session.id, now)
  return { user, session, merchant }
}

function signedOut(): AppError {
  return new AppError('unauthenticated', 'sign in to continue')
}
