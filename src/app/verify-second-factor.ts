import { isSessionLive, normalizeEmail } from '../domain/user.js'
import { recordFailure, refuseWhenThrottled } from './sign-in.js'
import {
  insertSession,
  totpStep,
  recoveryCodeHash,
  signInRefused,
  type StartedSession,
  type UserDeps,
} from './user-records.js'

/**
 * The sign-in's second step (docs/dashboard.md#two-factor): the TOTP code of the user's app, or one of their
 * recovery codes (each works once). The waiting session ends and a `full` one with a new id starts. Wrong codes
 * count against the same throttle as wrong passwords.
 */
export async function verifySecondFactor(
  deps: UserDeps,
  input: { token: string | undefined; code: string; address: string },
): Promise<StartedSession> {
  const now = deps.clock.now()
  if (input.token === undefined || input.token === '') throw signInRefused()
  const session = await deps.store.sessions.findByHash(deps.secrets.hashToken(input.token))
  if (session === undefined || session.stage !== 'totp' || !isSessionLive(session, now)) throw signInRefused()
  const user = await deps.store.users.findById(session.userId)
  if (user === undefined || user.totpSecret === null || user.totpEnabledAt === null) throw signInRefused()
  const keys = { account: `account:${normalizeEmail(user.email) ?? user.email}`, address: `address:${input.address}` }
  await refuseWhenThrottled(deps, keys, now)
  const code = input.code.trim()
  const step = /^\d{6}$/.test(code.replace(/\s/g, '')) ? totpStep(deps, user.totpSecret, code) : undefined
  const started = await deps.store.transaction(async (tx) => {
    // a code from the app is accepted once (RFC 6238 §5.2): a step used already, by this sign-in or another, fails
    const accepted =
      step !== undefined
        ? await tx.users.useTotpStep(user.id, step)
        : await tx.recoveryCodes.use(user.id, recoveryCodeHash(deps, code), now)
    if (!accepted) return undefined
    await tx.sessions.end(session.id, now)
    await tx.signInThrottle.clear(keys.account)
    return insertSession(tx, deps, user.id, 'full')
  })
  if (started === undefined) {
    await recordFailure(deps, keys, now)
    throw signInRefused()
  }
  return started
}
