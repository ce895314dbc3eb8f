import { AppError, validationFailed } from '../domain/errors.js'
import type { UserId } from '../domain/ids.js'
import { otpauthUri } from '../domain/totp.js'
import { RECOVERY_CODE_COUNT } from '../domain/user.js'
import { recoveryCodeHash, totpStep, type UserDeps } from './user-records.js'

/** The name authenticator apps show beside the account. */
const ISSUER = 'Invoice Service'

/**
 * Enrolment, first step (docs/dashboard.md#two-factor): a new secret (or the one of an enrolment begun already),
 * kept on the user but not in force until a code from it is confirmed. Returns the otpauth:// URI the page shows
 * as a QR code, and the secret for typing in.
 */
export async function beginTotpEnrolment(
  deps: UserDeps,
  userId: UserId,
): Promise<{ readonly uri: string; readonly secret: string }> {
  const user = await deps.store.users.findById(userId)
  if (user === undefined) throw new AppError('not_found', 'no such user')
  if (user.totpEnabledAt !== null) throw new AppError('invalid_transition', 'two-factor sign-in is on already')
  // an enrolment begun and not confirmed keeps its secret: a reloaded page shows what the app scanned already
  const secret = user.totpSecret ?? deps.secrets.newTotpSecret()
  if (user.totpSecret === null) await deps.store.transaction((tx) => tx.users.setTotp(userId, secret, null))
  return { uri: otpauthUri(ISSUER, user.email, secret), secret }
}

/**
 * Enrolment, second step: a code from the app proves it holds the secret; two-factor sign-in is then in force and
 * the recovery codes are returned, to be shown once (only their hashes are kept).
 */
export async function confirmTotpEnrolment(deps: UserDeps, userId: UserId, code: string): Promise<string[]> {
  const user = await deps.store.users.findById(userId)
  if (user === undefined) throw new AppError('not_found', 'no such user')
  if (user.totpEnabledAt !== null) throw new AppError('invalid_transition', 'two-factor sign-in is on already')
  if (user.totpSecret === null) throw new AppError('invalid_transition', 'start the enrolment first')
  const step = totpStep(deps, user.totpSecret, code)
  if (step === undefined) throw validationFailed([{ field: 'code', message: 'is not the code the app shows now' }])
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => deps.secrets.newRecoveryCode())
  const now = deps.clock.now()
  await deps.store.transaction(async (tx) => {
    await tx.users.setTotp(userId, user.totpSecret, now)
    // the confirming code is spent: it does not also sign in
    await tx.users.useTotpStep(userId, step)
    await tx.recoveryCodes.replace(
      userId,
      codes.map((c) => ({ id: deps.newId(), hash: recoveryCodeHash(deps, c) })),
    )
  })
  return codes
}
