/** What the dashboard's account use cases share: their dependencies, links, sessions and the second factor. */
import { AppError } from '../domain/errors.js'
import type { SessionId, UserId } from '../domain/ids.js'
import { base32Decode, matchTotp } from '../domain/totp.js'
import { LINK_LIFETIME_MS, type LinkPurpose, type Session, type SessionStage, type User } from '../domain/user.js'
import type { Tx } from '../ports/store.js'
import type { AppDeps } from './deps.js'

export type UserDeps = Pick<AppDeps, 'store' | 'clock' | 'newId' | 'secrets' | 'passwords' | 'publicUrl'>

/** A one-time link as printed: the token is in the URL only, the database keeps its hash. */
export interface IssuedLink {
  readonly user: User
  readonly url: string
  readonly expiresAt: Date
}

/** A new session: `token` goes into the cookie and nowhere else. */
export interface StartedSession {
  readonly token: string
  readonly session: Session
}

/** Issues a link of `purpose` for the user inside `tx`, retiring the user's earlier unused links. */
export async function insertLink(tx: Tx, deps: UserDeps, user: User, purpose: LinkPurpose): Promise<IssuedLink> {
  const now = deps.clock.now()
  const token = deps.secrets.newToken('')
  const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS)
  await tx.userLinks.retireAll(user.id, now)
  await tx.userLinks.insert({
    id: deps.newId(),
    userId: user.id,
    purpose,
    hash: deps.secrets.hashToken(token),
    createdAt: now,
    expiresAt,
    usedAt: null,
  })
  return { user, url: `${deps.publicUrl.replace(/\/+$/, '')}/dashboard/invite/${token}`, expiresAt }
}

/** Starts a session of `stage` for the user inside `tx`: a new random id every time (no fixation). */
export async function insertSession(
  tx: Tx,
  deps: UserDeps,
  userId: UserId,
  stage: SessionStage,
): Promise<StartedSession> {
  const now = deps.clock.now()
  const token = deps.secrets.newToken('')
  const session: Session = {
    id: deps.newId() as SessionId,
    hash: deps.secrets.hashToken(token),
    userId,
    stage,
    csrfToken: deps.secrets.newToken(''),
    createdAt: now,
    lastSeenAt: now,
    endedAt: null,
  }
  await tx.sessions.insert(session)
  return { token, session }
}

/** The TOTP time step `code` is the value of for this secret (one step of drift either way); undefined when none. */
export function totpStep(deps: Pick<AppDeps, 'secrets' | 'clock'>, secret: string, code: string): number | undefined {
  const key = base32Decode(secret)
  return key === undefined ? undefined : matchTotp(deps.secrets.hmacSha1, key, code, deps.clock.now())
}

/** A recovery code as hashed: lower-case, without spaces or the dash, so `ABCDE FGHIJ` is the same code. */
export function recoveryCodeHash(deps: Pick<AppDeps, 'secrets'>, code: string): string {
  return deps.secrets.hashToken(code.toLowerCase().replace(/[\s-]/g, ''))
}

/** The one answer for an unknown account, a wrong password and a wrong code (docs/dashboard.md#sign-in). */
export function signInRefused(): AppError {
  return new AppError('unauthenticated', 'the email address, password or code is not right')
}
