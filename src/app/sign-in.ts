import { AppError } from '../domain/errors.js'
import { normalizeEmail, PASSWORD_MAX_LENGTH, SIGN_IN_LIMITS, type Session } from '../domain/user.js'
import { insertSession, signInRefused, type StartedSession, type UserDeps } from './user-records.js'

export interface SignInInput {
  readonly email: string
  readonly password: string
  /** The client address (the per-address throttle). */
  readonly address: string
  /** The session the browser had, if any: ended, so the id changes at sign-in (no fixation). */
  readonly previousToken?: string | undefined
}

/**
 * docs/dashboard.md#sign-in. The same answer, 401 `unauthenticated`, for an unknown address and a wrong password,
 * after the same work: an unknown account's password is hashed against a dummy. Failures are counted per account
 * and per client address; past either limit the answer is 429 `rate_limited` until the window ends, whether the
 * account exists or not, and whatever the password. A right password starts a new session: `full`, or `totp`
 * when the user has a second factor, which `verifySecondFactor` then asks for.
 */
export async function signIn(deps: UserDeps, input: SignInInput): Promise<StartedSession> {
  const now = deps.clock.now()
  const email = normalizeEmail(input.email) ?? input.email.trim().toLowerCase().slice(0, 254)
  const keys = { account: `account:${email}`, address: `address:${input.address}` }
  await refuseWhenThrottled(deps, keys, now)
  const user = await deps.store.users.findByEmail(email)
  const password = input.password.slice(0, PASSWORD_MAX_LENGTH * 4)
  const ok =
    user?.passwordHash == null
      ? await deps.passwords.verifyDummy(password)
      : await deps.passwords.verify(password, user.passwordHash)
  if (!ok || user === undefined) {
    await recordFailure(deps, keys, now)
    throw signInRefused()
  }
  return deps.store.transaction(async (tx) => {
    await endPrevious(deps, input.previousToken, now, tx.sessions)
    await tx.signInThrottle.clear(keys.account)
    return insertSession(tx, deps, user.id, user.totpEnabledAt === null ? 'full' : 'totp')
  })
}

export async function refuseWhenThrottled(
  deps: UserDeps,
  keys: { account: string; address: string },
  now: Date,
): Promise<void> {
  const [account, address] = await Promise.all([
    deps.store.transaction((tx) => tx.signInThrottle.failures(keys.account, now, SIGN_IN_LIMITS.account.windowMs)),
    deps.store.transaction((tx) => tx.signInThrottle.failures(keys.address, now, SIGN_IN_LIMITS.address.windowMs)),
  ])
  if (account >= SIGN_IN_LIMITS.account.failures || address >= SIGN_IN_LIMITS.address.failures)
    throw new AppError('rate_limited', 'too many failed sign-ins; wait 15 minutes and try again')
}

export async function recordFailure(
  deps: UserDeps,
  keys: { account: string; address: string },
  now: Date,
): Promise<void> {
  await deps.store.transaction(async (tx) => {
    await tx.signInThrottle.recordFailure(keys.account, now, SIGN_IN_LIMITS.account.windowMs)
    await tx.signInThrottle.recordFailure(keys.address, now, SIGN_IN_LIMITS.address.windowMs)
  })
}

async function endPrevious(
  deps: UserDeps,
  token: string | undefined,
  now: Date,
  sessions: {
    findByHash(hash: string): Promise<Session | undefined>
    end(id: Session['id'], at: Date): Promise<boolean>
  },
): Promise<void> {
  if (token === undefined || token === '') return
  const previous = await sessions.findByHash(deps.secrets.hashToken(token))
  if (previous !== undefined) await sessions.end(previous.id, now)
}
