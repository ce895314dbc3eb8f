/**
 * The dashboard's access rules over every route it serves (docs/dashboard.md#users-and-roles), found in the app's
 * route table — a page added later is tried without joining a list:
 * - another merchant's owner reaches nothing of merchant A: every route naming A's invoice, delivery, key or user
 *   answers 404 `not_found`, and the pages without an id show none of A's data;
 * - A's viewer reads every page; each of its POSTs answers 403 `forbidden`, and nothing of A changes;
 * - a POST without a session answers 401 `unauthenticated` (a page redirects to sign-in); without its CSRF token,
 *   403 `csrf_failed`;
 * - the console answers A's owner and viewer 404; the merchant pages answer an operator 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MerchantId } from '../../src/domain/ids.js'
import { api, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { DashboardClient, FAST_PASSWORDS, signedIn, type InjectResponse } from '../helpers/dashboard.js'
import { routesOf, type Route } from '../helpers/routes.js'

/** The pages before sign-in and the user's own account: not a merchant's, so not in these rules. */
const OWN_ACCOUNT = /^\/dashboard\/(sign-in|sign-out|invite|2fa)(\/|$)/

let t: TestApp
let a: TestMerchant
let b: TestMerchant
let owner: DashboardClient
let viewer: DashboardClient
let stranger: DashboardClient
let operator: DashboardClient
let routes: Route[]
const ids: Record<string, string> = {}

beforeAll(async () => {
  t = await buildTestApp({ CALLBACK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' }, { passwords: FAST_PASSWORDS })
  a = await t.merchant('Blue Mug')
  b = await t.merchant('Other Shop')
  owner = await signedIn(t, { merchantId: a.id, email: 'owner@bluemug.example' })
  viewer = await signedIn(t, { merchantId: a.id, email: 'viewer@bluemug.example', role: 'viewer' })
  stranger = await signedIn(t, { merchantId: b.id, email: 'owner@other.example' })
  operator = await signedIn(t, { admin: true, email: 'ops@pay.example' })
  const shop = api(t).as(a)
  const made = async (order_id: string, outcome: 'paid' | 'hold', more: { callback_url?: string } = {}) => {
    const res = await shop.createInvoice({ order_id, amount: '10.00', currency: 'RUB', ...more })
    expectStatus(res, 201)
    const id = res.body.order_id // the seed API's create names the invoice id `order_id`
    expectStatus(await api(t).simulate(id, { outcome }), 200)
    return id
  }
  const paid = await made('SECRET-ORDER-A', 'paid', { callback_url: 'http://127.0.0.1:9/hook' })
  const hold = await made('SECRET-HOLD-A', 'hold')
  const [delivery] = await t.rt.store.deliveries.list({ merchantId: a.id as MerchantId, limit: 1 })
  const viewerUser = await t.rt.store.users.findByEmail('viewer@bluemug.example')
  Object.assign(ids, {
    invoice: paid,
    hold,
    delivery: delivery!.id,
    key: a.apiKeyId,
    user: viewerUser!.id,
    merchant: a.id,
  })
  routes = routesOf(t.app).filter((r) => r.path.startsWith('/dashboard') && !OWN_ACCOUNT.test(r.path))
})
afterAll(async () => t?.close())

/** The path with merchant A's ids in its parameters; throws for a parameter this test does not know yet. */
function ofA(path: string): string {
  return path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const id =
      name === 'delivery'
        ? ids['delivery']
        : path.startsWith('/dashboard/invoices/') || path.startsWith('/dashboard/console/invoices/')
          ? ids[path.includes('/capture') || path.includes('/cancel') ? 'hold' : 'invoice']
          : path.startsWith('/dashboard/api-keys/')
            ? ids['key']
            : path.startsWith('/dashboard/team/')
              ? ids['user']
              : path.startsWith('/dashboard/console/merchants/')
                ? ids['merchant']
                : undefined
    if (id === undefined) throw new Error(`${path}: which of merchant A's ids goes into :${name}? Teach ofA.`)
    return id
  })
}

/** A form every action would take: what each of them asks for, valid. */
const FORM = { amount: '1.00', role: 'owner', name: 'Taken', email: 'x@y.example', default_service: 'card' }

const isConsole = (r: Route) => r.path.startsWith('/dashboard/console')
const code = (res: InjectResponse) => (JSON.parse(res.body) as { code?: string }).code
function expectProblem(res: InjectResponse, status: number, c: string, what: string): void {
  expect({
    what,
    status: res.statusCode,
    code: res.statusCode === status ? code(res) : res.body.slice(0, 200),
  }).toEqual({
    what,
    status,
    code: c,
  })
}

describe("the dashboard's access rules over every route (docs/dashboard.md#users-and-roles)", () => {
  it('finds the merchant pages and the console in the route table', () => {
    const paths = routes.map((r) => r.path)
    for (const p of ['/dashboard', '/dashboard/invoices/:id', '/dashboard/team', '/dashboard/console/merchants/:id'])
      expect(paths).toContain(p)
    expect(routes.filter((r) => r.methods.includes('POST')).length).toBeGreaterThanOrEqual(15)
  })

  it("when another merchant's owner tries every route naming merchant A's things, then 404, and the others show none of A's data", async () => {
    for (const r of routes.filter((x) => !isConsole(x))) {
      const url = ofA(r.path)
      if (r.path.includes(':')) {
        for (const m of r.methods)
          expectProblem(
            m === 'GET' ? await stranger.get(url) : await stranger.post(url, FORM),
            404,
            'not_found',
            `${m} ${r.path}`,
          )
      } else if (r.methods.includes('GET')) {
        const res = await stranger.get(url)
        expect([200, 303], `GET ${r.path}`).toContain(res.statusCode)
        for (const secret of ['SECRET-ORDER-A', 'SECRET-HOLD-A', ids['invoice']!, 'owner@bluemug.example', 'Blue Mug'])
          expect(res.body, `GET ${r.path} shows ${secret}`).not.toContain(secret)
      }
    }
  })

  it("when A's viewer posts any form, then 403 forbidden; it reads every page; and nothing of A changed", async () => {
    for (const r of routes.filter((x) => !isConsole(x))) {
      const url = ofA(r.path)
      if (r.methods.includes('GET')) expect((await viewer.get(url)).statusCode, `GET ${r.path}`).toBe(200)
      if (r.methods.includes('POST')) expectProblem(await viewer.post(url, FORM), 403, 'forbidden', `POST ${r.path}`)
    }
    const shop = api(t).as(a)
    for (const [id, status] of [
      [ids['hold']!, 'hold'],
      [ids['invoice']!, 'paid'],
    ] as const) {
      const res = await shop.getInvoice(id)
      expectStatus(res, 200)
      expect(res.body.status).toBe(status)
    }
    expect((await t.rt.store.merchants.findById(a.id as MerchantId))?.name).toBe('Blue Mug')
    expect((await t.rt.store.users.findByEmail('viewer@bluemug.example'))?.role).toBe('viewer')
    expect((await t.rt.store.refunds.listByInvoice(ids['invoice'] as never)).length).toBe(0)
  })

  it('when any form comes without a session, then 401 unauthenticated and a page sends the browser to sign in', async () => {
    const nobody = new DashboardClient(t)
    for (const r of routes) {
      if (r.methods.includes('POST'))
        expectProblem(await nobody.request('POST', ofA(r.path), FORM), 401, 'unauthenticated', `POST ${r.path}`)
      if (r.methods.includes('GET')) {
        const res = await nobody.get(ofA(r.path))
        expect({ path: r.path, status: res.statusCode, to: res.headers.location }).toEqual({
          path: r.path,
          status: 303,
          to: '/dashboard/sign-in',
        })
      }
    }
  })

  it('when any form comes without its CSRF token, then 403 csrf_failed', async () => {
    for (const r of routes.filter((x) => x.methods.includes('POST')))
      expectProblem(
        await (isConsole(r) ? operator : owner).request('POST', ofA(r.path), {}),
        403,
        'csrf_failed',
        r.path,
      )
  })

  it("when A's owner or viewer tries the console, or an operator a merchant page, then 404", async () => {
    for (const r of routes) {
      const url = ofA(r.path)
      const who = isConsole(r) ? [owner, viewer] : r.path === '/dashboard' ? [] : [operator]
      for (const c of who)
        for (const m of r.methods)
          expectProblem(m === 'GET' ? await c.get(url) : await c.post(url, {}), 404, 'not_found', `${m} ${r.path}`)
    }
  })
})
