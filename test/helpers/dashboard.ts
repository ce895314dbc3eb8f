/**
 * Dashboard sessions for tests (docs/dashboard.md): a cookie jar over app.inject that signs in as a real user —
 * invited by the use case the CLI calls, password set through the invitation, signed in through the sign-in form —
 * and hands its cookies to a Chromium context. Build the app with `passwords: FAST_PASSWORDS` so a sign-in costs
 * milliseconds, not the production scrypt's second.
 */
import type { BrowserContext } from 'playwright-core'
import { expect } from 'vitest'
import { createScryptHasher } from '../../src/adapters/system/password-hasher.js'
import type { TestApp } from './build-test-app.js'

/** scrypt at a test's cost (the production parameters are tested in the hasher's own tests). */
export const FAST_PASSWORDS = createScryptHasher({ log2N: 10, r: 8, p: 1 })
export const TEST_PASSWORD = 'correct horse battery'

export interface InjectResponse {
  readonly statusCode: number
  readonly headers: Record<string, string | string[] | number | undefined>
  readonly body: string
}

/** A browser's cookie jar over app.inject: name → value, from Set-Cookie. */
export class DashboardClient {
  readonly jar = new Map<string, string>()
  constructor(private readonly t: TestApp) {}

  async request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<InjectResponse> {
    const res = await this.t.app.inject({
      method,
      url,
      headers: {
        ...headers,
        ...(this.jar.size > 0 && { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') }),
        ...(form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form !== undefined && { payload: new URLSearchParams(form).toString() }),
    })
    const set = res.headers['set-cookie']
    for (const line of Array.isArray(set) ? set : set === undefined ? [] : [set]) {
      const [pair] = line.split(';')
      const [name, value] = (pair ?? '').split('=') as [string, string]
      if (/Max-Age=0/.test(line)) this.jar.delete(name)
      else this.jar.set(name, value)
    }
    return res
  }

  get(url: string, headers?: Record<string, string>): Promise<InjectResponse> {
    return this.request('GET', url, undefined, headers)
  }

  /** The CSRF token of the (first) form on the page at `url` (after a redirect to another dashboard page). */
  async csrf(url: string): Promise<string> {
    let res = await this.request('GET', url)
    // an operator's /dashboard is the console: follow the one redirect within the dashboard
    const to = res.headers.location
    if (res.statusCode === 303 && typeof to === 'string' && to.startsWith('/dashboard/') && !to.includes('sign-in'))
      res = await this.request('GET', to)
    const token = /name="csrf" value="([^"]+)"/.exec(res.body)?.[1]
    expect(token, `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`).toBeDefined()
    return token!
  }

  /** POSTs `form` to `url` with the CSRF token of the page at `from` (default: the dashboard's landing page). */
  async post(url: string, form: Record<string, string> = {}, from = '/dashboard'): Promise<InjectResponse> {
    return this.request('POST', url, { csrf: await this.csrf(from), ...form })
  }

  /** The session's cookies in a Chromium context at `origin`, so a page opens signed in. */
  async into(context: BrowserContext, origin: string): Promise<void> {
    await context.addCookies([...this.jar].map(([name, value]) => ({ name, value, url: `${origin}/dashboard` })))
  }
}

export type Who =
  | { readonly merchantId: string; readonly email: string; readonly role?: 'owner' | 'viewer' }
  | { readonly admin: true; readonly email: string }

/** Invites `who`, sets their password through the invitation page and signs in by the form: a signed-in client. */
export async function signedIn(t: TestApp, who: Who, password = TEST_PASSWORD): Promise<DashboardClient> {
  const link = await t.rt.useCases.users.invite(who)
  const c = new DashboardClient(t)
  const path = new URL(link.url).pathname
  const set = await c.request('POST', path, { csrf: await c.csrf(path), password })
  expect(set.statusCode, set.body.slice(0, 200)).toBe(303)
  const res = await c.request('POST', '/dashboard/sign-in', {
    csrf: await c.csrf('/dashboard/sign-in'),
    email: who.email,
    password,
  })
  expect(res.headers.location, res.body.slice(0, 200)).toBe('/dashboard')
  return c
}
