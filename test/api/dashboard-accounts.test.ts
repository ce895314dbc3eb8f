/**
 * Dashboard users and sign-in, server side (docs/dashboard.md): invitations and reset links, passwords, sessions and
 * their timeouts, two-factor with recovery codes, the sign-in throttle. Through the runtime's bound use cases, on
 * the test database; passwords are hashed with cheap scrypt parameters here (the production ones are tested below).
 */
import { createHmac } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createScryptHasher, OWASP_SCRYPT } from '../../src/adapters/system/password-hasher.js'
import { AppError, type ErrorCode } from '../../src/domain/errors.js'
import { base32Decode, totp } from '../../src/domain/totp.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

const FAST = createScryptHasher({ log2N: 10, r: 8, p: 1 })
const PASSWORD = 'correct horse battery'
const ADDRESS = '203.0.113.7'

async function rejects(promise: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err, `expected ${code}`).toBeInstanceOf(AppError)
  expect((err as AppError).code).toBe(code)
  return err as AppError
}

const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1)
const code = (secret: string, now: Date): string =>
  totp((k, m) => createHmac('sha1', k).update(m).digest(), base32Decode(secret)!, now)

describe('dashboard accounts (docs/dashboard.md)', () => {
  let t: TestApp
  let m: TestMerchant
  let users: TestApp['rt']['useCases']['users']
  beforeEach(async () => {
    t = await buildTestApp({}, { passwords: FAST })
    m = await t.merchant()
    users = t.rt.useCases.users
  })
  afterEach(async () => t.close())

  /** An invited owner who has set PASSWORD. */
  async function owner(email = 'owner@shop.example') {
    const link = await users.invite({ merchantId: m.id, email, role: 'owner' })
    await users.setPassword(tokenOf(link.url), PASSWORD)
    return link.user
  }

  const signIn = (email = 'owner@shop.example', password = PASSWORD, address = ADDRESS, previousToken?: string) =>
    users.signIn({ email, password, address, previousToken })

  it('when a user is invited, then the link is on PUBLIC_URL, works once within 24 h, and stores only its hash', async () => {
    const link = await users.invite({ merchantId: m.id, email: ' Owner@Shop.Example ', role: 'viewer' })
    expect(link.url).toMatch(/^http:\/\/pay\.test\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/)
    expect(link.user).toMatchObject({ email: 'owner@shop.example', role: 'viewer', merchantId: m.id })
    expect(link.expiresAt.getTime() - t.clock.now().getTime()).toBe(24 * 3600_000)
    const token = tokenOf(link.url)
    expect((await users.readLink(token)).email).toBe('owner@shop.example')
    await rejects(users.setPassword(token, 'short'), 'validation_failed')
    await users.setPassword(token, PASSWORD)
    await rejects(users.setPassword(token, PASSWORD), 'not_found')
    await rejects(users.readLink(token), 'not_found')
    // the same address again: refused (reset-password instead)
    await rejects(users.invite({ merchantId: m.id, email: 'owner@shop.example' }), 'validation_failed')

    const late = await users.invite({ admin: true, email: 'ops@service.example' })
    expect(late.user).toMatchObject({ role: 'admin', merchantId: null })
    t.clock.advance(24 * 3600)
    await rejects(users.setPassword(tokenOf(late.url), PASSWORD), 'not_found')
  })

  it('when an invitation names no merchant that exists, a role that is none, or no address, then it is refused', async () => {
    await rejects(
      users.invite({ merchantId: '00000000-0000-7000-8000-000000000000', email: 'a@b.example' }),
      'not_found',
    )
    await rejects(users.invite({ merchantId: m.id, email: 'a@b.example', role: 'admin' }), 'validation_failed')
    await rejects(users.invite({ merchantId: m.id, email: 'not an address' }), 'validation_failed')
    await rejects(users.resetPassword('nobody@shop.example'), 'not_found')
  })

  it('when the password is wrong or the account unknown, then the same 401 unauthenticated with the same detail', async () => {
    await owner()
    const wrong = await rejects(signIn('owner@shop.example', 'wrong password!'), 'unauthenticated')
    const unknown = await rejects(signIn('nobody@shop.example', PASSWORD), 'unauthenticated')
    expect(unknown.message).toBe(wrong.message)
    // invited but no password set yet: the same answer too
    await users.invite({ merchantId: m.id, email: 'later@shop.example' })
    expect((await rejects(signIn('later@shop.example', PASSWORD), 'unauthenticated')).message).toBe(wrong.message)
  })

  it('when a user signs in, then a new session id each time (the previous one ends), and sign-out ends it', async () => {
    const user = await owner()
    const first = await signIn()
    expect(first.session.stage).toBe('full')
    expect((await users.authenticate(first.token)).user.id).toBe(user.id)
    expect((await users.authenticate(first.token)).merchant?.id).toBe(m.id)
    const second = await signIn('OWNER@shop.example', PASSWORD, ADDRESS, first.token)
    expect(second.token).not.toBe(first.token)
    await rejects(users.authenticate(first.token), 'unauthenticated')
    await users.signOut(second.token)
    await rejects(users.authenticate(second.token), 'unauthenticated')
    await rejects(users.authenticate(undefined), 'unauthenticated')
  })

  it('when a session is idle 30 minutes, or 12 hours old however active, then it no longer signs in', async () => {
    await owner()
    const idle = await signIn()
    t.clock.advance(29 * 60)
    await users.authenticate(idle.token)
    t.clock.advance(29 * 60)
    await users.authenticate(idle.token) // idle time runs from the last request
    t.clock.advance(30 * 60)
    await rejects(users.authenticate(idle.token), 'unauthenticated')

    const busy = await signIn()
    for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
      t.clock.advance(20 * 60)
      await users.authenticate(busy.token)
    }
    t.clock.advance(20 * 60)
    await rejects(users.authenticate(busy.token), 'unauthenticated')
  })

  it('when the password is reset, then every session of the user ends and the new password signs in', async () => {
    await owner()
    const a = await signIn()
    const b = await signIn()
    const reset = await users.resetPassword('owner@shop.example')
    expect(tokenOf(reset.url)).not.toBe('')
    await users.setPassword(tokenOf(reset.url), 'a new long passphrase')
    await rejects(users.authenticate(a.token), 'unauthenticated')
    await rejects(users.authenticate(b.token), 'unauthenticated')
    await rejects(signIn(), 'unauthenticated')
    await signIn('owner@shop.example', 'a new long passphrase')
  })

  it('when two-factor is enrolled, then sign-in asks for the code; a recovery code works once', async () => {
    const user = await owner()
    const enrol = await users.beginTotpEnrolment(user.id)
    expect(enrol.uri).toContain(`secret=${enrol.secret}`)
    await rejects(users.confirmTotpEnrolment(user.id, '000000'), 'validation_failed')
    const recovery = await users.confirmTotpEnrolment(user.id, code(enrol.secret, t.clock.now()))
    expect(recovery).toHaveLength(10)
    expect(new Set(recovery).size).toBe(10)
    await rejects(users.beginTotpEnrolment(user.id), 'invalid_transition')
    t.clock.advance(30) // the confirming code is spent: the next step's code signs in

    const waiting = await signIn()
    expect(waiting.session.stage).toBe('totp')
    await rejects(users.authenticate(waiting.token), 'unauthenticated') // not signed in yet
    await rejects(
      users.verifySecondFactor({ token: waiting.token, code: '123456', address: ADDRESS }),
      'unauthenticated',
    )
    const full = await users.verifySecondFactor({
      token: waiting.token,
      code: code(enrol.secret, t.clock.now()),
      address: ADDRESS,
    })
    expect(full.token).not.toBe(waiting.token)
    expect((await users.authenticate(full.token)).user.id).toBe(user.id)
    // the waiting session is spent
    await rejects(
      users.verifySecondFactor({ token: waiting.token, code: code(enrol.secret, t.clock.now()), address: ADDRESS }),
      'unauthenticated',
    )

    // the same code once more, in the same step: refused (RFC 6238 §5.2: a code is accepted once)
    const replay = await signIn()
    await rejects(
      users.verifySecondFactor({ token: replay.token, code: code(enrol.secret, t.clock.now()), address: ADDRESS }),
      'unauthenticated',
    )
    t.clock.advance(30)
    const next = await users.verifySecondFactor({
      token: replay.token,
      code: code(enrol.secret, t.clock.now()),
      address: ADDRESS,
    })
    expect((await users.authenticate(next.token)).user.id).toBe(user.id)

    const again = await signIn()
    const byRecovery = await users.verifySecondFactor({
      token: again.token,
      code: recovery[0]!.toUpperCase(),
      address: ADDRESS,
    })
    expect((await users.authenticate(byRecovery.token)).user.id).toBe(user.id)
    const once = await signIn()
    await rejects(
      users.verifySecondFactor({ token: once.token, code: recovery[0]!, address: ADDRESS }),
      'unauthenticated',
    )
  })

  it('when an account has 5 failed sign-ins, then the next answers 429 even with the right password, until the window ends', async () => {
    await owner()
    for (let i = 0; i < 5; i++)
      await rejects(signIn('owner@shop.example', `wrong password ${i}`, `198.51.100.${i}`), 'unauthenticated')
    await rejects(signIn(), 'rate_limited')
    // an unknown account is throttled the same way: the answer tells nothing of which accounts exist
    for (let i = 0; i < 5; i++)
      await rejects(signIn('ghost@shop.example', `wrong password ${i}`, `198.51.100.${i}`), 'unauthenticated')
    await rejects(signIn('ghost@shop.example', PASSWORD), 'rate_limited')
    t.clock.advance(15 * 60)
    await signIn()
  })

  it('when an address has 20 failed sign-ins across accounts, then it answers 429 for every account', async () => {
    await owner()
    for (let i = 0; i < 20; i++)
      await rejects(signIn(`user${i}@shop.example`, 'wrong password!', '192.0.2.1'), 'unauthenticated')
    await rejects(signIn('owner@shop.example', PASSWORD, '192.0.2.1'), 'rate_limited')
    await signIn('owner@shop.example', PASSWORD, '192.0.2.2')
  })

  it('when the merchant is disabled, then its users are signed out', async () => {
    await owner()
    const s = await signIn()
    await t.rt.useCases.accounts.setMerchantStatus(m.id, 'disabled')
    await rejects(users.authenticate(s.token), 'unauthenticated')
  })
})

describe('scrypt at OWASP parameters (N = 2^17, r = 8, p = 1)', () => {
  it('when a password is hashed, then the hash names its parameters, verifies it and refuses another', async () => {
    const hasher = createScryptHasher()
    expect(OWASP_SCRYPT).toEqual({ log2N: 17, r: 8, p: 1 })
    const stored = await hasher.hash(PASSWORD)
    expect(stored).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/)
    expect(stored).not.toContain(PASSWORD)
    expect(await hasher.verify(PASSWORD, stored)).toBe(true)
    expect(await hasher.verify('correct horse battery!', stored)).toBe(false)
    expect(await hasher.verify(PASSWORD, 'scrypt$99$8$1$AA==$AA==')).toBe(false)
    expect(await hasher.verifyDummy(PASSWORD)).toBe(false)
  })
})
