import { AppError, validationFailed } from '../domain/errors.js'
import { isLinkUsable, passwordProblem, type User } from '../domain/user.js'
import type { UserDeps } from './user-records.js'

/** Whether a one-time link can be used now, and whose it is (the invite page shows the address). */
export async function readLink(deps: UserDeps, token: string): Promise<User> {
  const link = await deps.store.transaction((tx) => tx.userLinks.findByHash(deps.secrets.hashToken(token)))
  if (link === undefined || !isLinkUsable(link, deps.clock.now())) throw linkGone()
  const user = await deps.store.users.findById(link.userId)
  if (user === undefined) throw linkGone()
  return user
}

/**
 * The invitation or reset page's form: sets the password and uses the link up (compare-and-set, so a link is used
 * once even when two tabs send it together). Every session of the user ends: a password change signs out everywhere.
 */
export async function setPassword(deps: UserDeps, token: string, password: string): Promise<User> {
  const problem = passwordProblem(password)
  if (problem !== undefined) throw validationFailed([{ field: 'password', message: problem }])
  // hashed before the transaction: the KDF's hundreds of milliseconds hold no database lock
  const hash = await deps.passwords.hash(password)
  const now = deps.clock.now()
  return deps.store.transaction(async (tx) => {
    const link = await tx.userLinks.findByHash(deps.secrets.hashToken(token))
    if (link === undefined || !isLinkUsable(link, now) || !(await tx.userLinks.markUsed(link.id, now))) throw linkGone()
    await tx.users.setPassword(link.userId, hash, now)
    await tx.sessions.endAllOfUser(link.userId, now)
    const user = await tx.users.findById(link.userId)
    if (user === undefined) throw linkGone()
    return user
  })
}

function linkGone(): AppError {
  return new AppError('not_found', 'this link is unknown, used or expired; ask for a new one')
}
