import { AppError, validationFailed } from '../domain/errors.js'
import { normalizeEmail } from '../domain/user.js'
import { insertLink, type IssuedLink, type UserDeps } from './user-records.js'

/** `user reset-password`: a new one-time link (24 h) for an existing user; their earlier links stop working. */
export async function resetPassword(deps: UserDeps, emailText: string): Promise<IssuedLink> {
  const email = normalizeEmail(emailText)
  if (email === undefined) throw validationFailed([{ field: 'email', message: 'must be an email address' }])
  return deps.store.transaction(async (tx) => {
    const user = await tx.users.findByEmail(email)
    if (user === undefined) throw new AppError('not_found', `no user ${email}`)
    return insertLink(tx, deps, user, 'reset')
  })
}
