import type { UserDeps } from './user-records.js'

/** Ends the session of this cookie, whatever its state; nothing to do without one. */
export async function signOut(deps: UserDeps, token: string | undefined): Promise<void> {
  if (token === undefined || token === '') return
  const now = deps.clock.now()
  await deps.store.transaction(async (tx) => {
    const session = await tx.sessions.findByHash(deps.secrets.hashToken(token))
    if (session !== undefined) await tx.sessions.end(session.id, now)
  })
}
