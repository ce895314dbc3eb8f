/**
 * What can never sign anyone in again is deleted (docs/dashboard.md#sessions): sessions 30 days after they are over,
 * links 30 days after they expired, sign-in failure windows once over — and nothing that still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { DashboardClient, FAST_PASSWORDS, signedIn } from '../helpers/dashboard.js'

const DAY = 24 * 3600

describe('dashboard records purge (docs/dashboard.md#sessions)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp({}, { passwords: FAST_PASSWORDS })
  })
  afterAll(async () => t.close())

  const purge = () => t.rt.useCases.users.purge(500)
  const session = (c: DashboardClient) =>
    t.rt.deps.store.sessions.findByHash(t.rt.deps.secrets.hashToken(c.jar.get('dashboard_session')!))
  const link = (url: string) =>
    t.rt.deps.store.transaction((tx) =>
      tx.userLinks.findByHash(t.rt.deps.secrets.hashToken(new URL(url).pathname.split('/').pop()!)),
    )

  it('when sessions, links and failure windows are over long enough, then they go, and what still works stays', async () => {
    const m = await t.merchant('Purge Books')
    const old = await signedIn(t, { merchantId: m.id, email: 'old@purge.example' })
    const oldLink = await t.rt.useCases.users.resetPassword('old@purge.example')
    const failed = new DashboardClient(t)
    const wrong = await failed.request('POST', '/dashboard/sign-in', {
      csrf: await failed.csrf('/dashboard/sign-in'),
      email: 'old@purge.example',
      password: 'not the password at all',
    })
    expect(wrong.statusCode).toBe(401)

    expect(await purge()).toBe(0) // all of it still counts
    expect(await session(old)).toBeDefined()

    t.clock.advance(16 * 60) // the failure windows (15 minutes) are over
    expect(await purge()).toBe(2) // the account's and the address's
    expect(await purge()).toBe(0)

    t.clock.advance(31 * DAY) // the session (idle since) and the link (expired after 24 h) are over for 30 days
    const fresh = await signedIn(t, { merchantId: m.id, email: 'fresh@purge.example' })
    const freshLink = await t.rt.useCases.users.resetPassword('fresh@purge.example')
    expect(await purge()).toBe(2) // the most of one kind: the invitation and the reset link (and one session)
    expect(await session(old)).toBeUndefined()
    expect(await link(oldLink.url)).toBeUndefined()
    // this morning's session and link still work
    expect(await session(fresh)).toBeDefined()
    expect(await link(freshLink.url)).toBeDefined()
    expect((await fresh.get('/dashboard')).statusCode).toBe(200)
    expect(await purge()).toBe(0)
  })
})
