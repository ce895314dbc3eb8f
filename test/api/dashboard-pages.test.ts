/**
 * The dashboard's pages over HTTP (docs/dashboard.md#pages): invitation → password → sign-in → two-factor
 * enrolment → sign-out → sign-in with a code; cookies, CSRF, session fixation, the CSP, and a debug-level log
 * that holds no password, TOTP secret, session token or link token.
 */
import { createHmac } from 'node:crypto'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createScryptHasher } from '../../src/adapters/system/password-hasher.js'
import { base32Decode, totp } from '../../src/domain/totp.js'
import { api, expectProblem } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { DashboardClient as Browser } from '../helpers/dashboard.js'

const FAST = createScryptHasher({ log2N: 10, r: 8, p: 1 })
const PASSWORD = 'correct horse battery'
const EMAIL = 'owner@shop.example'

const sha1 = (k: Uint8Array, m: Uint8Array) => createHmac('sha1', k).update(m).digest()

describe('dashboard pages (docs/dashboard.md#pages)', () => {
  let t: TestApp
  let m: TestMerchant
  let log: string
  beforeEach(async () => {
    log = ''
    const sink = new Writable({
      write(chunk, _enc, done) {
        log += String(chunk)
        done()
      },
    })
    t = await buildTestApp({}, { passwords: FAST, logger: pino({ level: 'debug' }, sink) })
    m = await t.merchant('Acme Books')
  })
  afterEach(async () => t.close())

  async function invited(): Promise<string> {
    const link = await t.rt.useCases.users.invite({ merchantId: m.id, email: EMAIL })
    return new URL(link.url).pathname
  }

  async function signIn(b: Browser, password = PASSWORD) {
    const csrf = await b.csrf('/dashboard/sign-in')
    return b.request('POST', '/dashboard/sign-in', { csrf, email: EMAIL, password })
  }

  it('when the whole flow runs, then each step answers as it should and the log holds none of its secrets', async () => {
    const b = new Browser(t)
    const path = await invited()
    const linkToken = path.split('/').pop()!

    const page = await b.request('GET', path)
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain(EMAIL)
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none';style-src 'self';img-src 'self' data:;form-action 'self';frame-ancestors 'none';base-uri 'none'",
    )
    expect(page.headers['cache-control']).toBe('no-store')
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!
    expectProblem(
      await api(t).raw({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `dashboard_form=${csrf}` },
        payload: `password=${encodeURIComponent(PASSWORD)}`,
      }),
      403,
      'csrf_failed',
    )
    expect((await b.request('POST', path, { csrf, password: 'short' })).statusCode).toBe(400)
    const set = await b.request('POST', path, { csrf, password: PASSWORD })
    expect(set.statusCode).toBe(303)
    expect(set.headers.location).toBe('/dashboard/sign-in?done=1')
    expect((await b.request('GET', path)).statusCode).toBe(404) // used up

    const wrong = await signIn(b, 'not the password')
    expect(wrong.statusCode).toBe(401)
    expect(wrong.body).toContain('The email address, password or code is not right.')
    const ok = await signIn(b)
    expect(ok.statusCode).toBe(303)
    expect(ok.headers.location).toBe('/dashboard')
    expect(String(ok.headers['set-cookie'])).toMatch(
      /^dashboard_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Lax$/,
    )
    const landing = await b.request('GET', '/dashboard')
    expect(landing.statusCode).toBe(200)
    expect(landing.body).toContain('Acme Books')
    expect(landing.body).toContain('owner')

    // two-factor enrolment: the QR code is the project's own PNG, inline
    const enrol = await b.request('GET', '/dashboard/2fa')
    expect(enrol.statusCode).toBe(200)
    expect(enrol.body).toContain('src="data:image/png;base64,')
    const secret = /<code>([A-Z2-7]+)<\/code>/.exec(enrol.body)![1]!
    const sessionCsrf = /name="csrf" value="([^"]+)"/.exec(enrol.body)![1]!
    const code = () => totp(sha1, base32Decode(secret)!, t.clock.now())
    expect((await b.request('POST', '/dashboard/2fa', { csrf: sessionCsrf, code: '000000' })).statusCode).toBe(400)
    const confirmed = await b.request('POST', '/dashboard/2fa', { csrf: sessionCsrf, code: code() })
    expect(confirmed.statusCode).toBe(200)
    const recovery = [...confirmed.body.matchAll(/<li><code>([a-z2-7]{5}-[a-z2-7]{5})<\/code><\/li>/g)].map((x) => x[1])
    expect(recovery).toHaveLength(10)

    // sign-out: without the token refused, with it the session ends
    const sessionToken = b.jar.get('dashboard_session')!
    expectProblem(
      await api(t).raw({
        method: 'POST',
        url: '/dashboard/sign-out',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `dashboard_session=${sessionToken}` },
        payload: '',
      }),
      403,
      'csrf_failed',
    )
    const out = await b.request('POST', '/dashboard/sign-out', { csrf: sessionCsrf })
    expect(out.statusCode).toBe(303)
    expect(b.jar.has('dashboard_session')).toBe(false)
    const replay = await api(t).raw({ url: '/dashboard', headers: { cookie: `dashboard_session=${sessionToken}` } })
    expect(replay.status).toBe(303)
    expect(replay.headers.location).toBe('/dashboard/sign-in')

    // sign-in again: the password, then the code (of the next time step: the confirming one is spent)
    t.clock.advance(30)
    const first = await signIn(b)
    expect(first.headers.location).toBe('/dashboard/sign-in/code')
    expect((await b.request('GET', '/dashboard')).statusCode).toBe(303) // not signed in yet
    const codeCsrf = await b.csrf('/dashboard/sign-in/code')
    const second = await b.request('POST', '/dashboard/sign-in/code', { csrf: codeCsrf, code: code() })
    expect(second.statusCode).toBe(303)
    expect(second.headers.location).toBe('/dashboard')
    expect((await b.request('GET', '/dashboard')).statusCode).toBe(200)

    const finalToken = b.jar.get('dashboard_session')!
    for (const secretText of [PASSWORD, secret, linkToken, sessionToken, finalToken, ...recovery])
      expect(log, 'a secret in the debug log').not.toContain(secretText)
    expect(log).toContain('/dashboard/invite/[redacted]')
  })

  it('when a browser brings a session id to sign-in, then it gets a new one and the old one ends (no fixation)', async () => {
    const path = await invited()
    const b = new Browser(t)
    const csrf = await b.csrf(path)
    await b.request('POST', path, { csrf, password: PASSWORD })
    await signIn(b)
    const before = b.jar.get('dashboard_session')!
    await signIn(b)
    const after = b.jar.get('dashboard_session')!
    expect(after).not.toBe(before)
    expect((await api(t).raw({ url: '/dashboard', headers: { cookie: `dashboard_session=${before}` } })).status).toBe(
      303,
    )
    expect((await b.request('GET', '/dashboard')).statusCode).toBe(200)
    // a planted id that is no session is simply replaced
    b.jar.set('dashboard_session', 'planted-by-an-attacker')
    await signIn(b)
    expect(b.jar.get('dashboard_session')).not.toBe('planted-by-an-attacker')
  })

  it('when the sign-in form is posted without its token, then 403 csrf_failed; in Russian, the page speaks Russian', async () => {
    expectProblem(
      await api(t).raw({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=${EMAIL}&password=x`,
      }),
      403,
      'csrf_failed',
    )
    const ru = await api(t).raw({ url: '/dashboard/sign-in?lang=ru' })
    expect(ru.text).toContain('<html lang="ru">')
    expect(ru.text).toContain('Войти')
  })

  it('when a browser posts a form without its token, then the same 403 csrf_failed comes as a page in its language (docs/dashboard.md#users-and-roles)', async () => {
    const res = await api(t).raw({
      method: 'POST',
      url: '/dashboard/sign-in?lang=ru',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml' },
      payload: `email=${EMAIL}&password=x`,
    })
    expect(res.status).toBe(403)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toContain("default-src 'none'")
    expect(res.text).toContain('<html lang="ru">')
    expect(res.text).toContain('<code>csrf_failed</code>')
    expect(res.text).toContain('Код ошибки')
  })

  it('when an account fails too often, then the sign-in page answers 429 with the wait', async () => {
    const b = new Browser(t)
    for (let i = 0; i < 5; i++) expect((await signIn(b, `wrong ${i} password`)).statusCode).toBe(401)
    const blocked = await signIn(b)
    expect(blocked.statusCode).toBe(429)
    expect(blocked.body).toContain('Wait 15 minutes')
  })

  it('when PUBLIC_URL is https, then the session cookie is Secure', async () => {
    const s = await buildTestApp({ PUBLIC_URL: 'https://pay.test' }, { passwords: FAST })
    try {
      const shop = await s.merchant()
      const link = await s.rt.useCases.users.invite({ merchantId: shop.id, email: EMAIL })
      await s.rt.useCases.users.setPassword(link.url.split('/').pop()!, PASSWORD)
      const b = new Browser(s)
      const csrf = await b.csrf('/dashboard/sign-in')
      const res = await b.request('POST', '/dashboard/sign-in', { csrf, email: EMAIL, password: PASSWORD })
      expect(String(res.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Lax; Secure$/)
    } finally {
      await s.close()
    }
  })
})
