/**
 * The operator console (docs/dashboard.md#operator-console) over HTTP: each page and action as an operator; a
 * merchant's owner and viewer get 404 on every one; an action without its CSRF token is 403 csrf_failed; disabling a
 * merchant ends its users' sessions and its keys answer 403 merchant_disabled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectProblem } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { FAST_PASSWORDS, signedIn, type DashboardClient } from '../helpers/dashboard.js'
import { failDueDeliveries } from '../helpers/deliveries.js'

const HTML = { accept: 'text/html' }

describe('the operator console (docs/dashboard.md#operator-console)', () => {
  let t: TestApp
  let a: TestMerchant
  let b: TestMerchant
  let op: DashboardClient
  let owner: DashboardClient
  let viewer: DashboardClient
  let paidId: string

  beforeAll(async () => {
    t = await buildTestApp(
      { SERVICE_FEES: 'card=2.5%,sbp=0.4%+1.00', SERVICES: 'card,sbp:RUB', CALLBACK_ALLOW_HTTP: 'true' },
      { passwords: FAST_PASSWORDS },
    )
    a = await t.merchant('Alpha Books')
    b = await t.merchant('Beta Games')
    op = await signedIn(t, { admin: true, email: 'ops@example.test' })
    owner = await signedIn(t, { merchantId: a.id, email: 'owner@alpha.test' })
    viewer = await signedIn(t, { merchantId: a.id, email: 'viewer@alpha.test', role: 'viewer' })
    // one order_id at both merchants; A's paid with a callback_url (a pending delivery)
    paidId = await api(t).as(a).newInvoice({
      order_id: 'SHARED-1',
      amount: '100.00',
      currency: 'RUB',
      callback_url: 'http://hooks.alpha.test/x?token=s3cret',
    })
    await api(t).simulate(paidId, { outcome: 'paid' })
    await api(t).as(b).newInvoice({ order_id: 'SHARED-1', amount: '5.00', currency: 'RUB' })
  })
  afterAll(() => t?.close())

  it('when an operator opens /dashboard, then it is sent to the console', async () => {
    const res = await op.get('/dashboard')
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/dashboard/console')
  })

  it('when an operator opens each console page, then each answers 200 in English and Russian', async () => {
    for (const path of [
      '/dashboard/console',
      '/dashboard/console/merchants',
      `/dashboard/console/merchants/${a.id}`,
      '/dashboard/console/invoices',
      `/dashboard/console/invoices/${paidId}`,
      '/dashboard/console/health',
    ]) {
      for (const lang of ['en', 'ru']) {
        const res = await op.get(`${path}?lang=${lang}`)
        expect(res.statusCode, `${path} ${res.body.slice(0, 300)}`).toBe(200)
        expect(res.body).toContain(`<html lang="${lang}">`)
      }
    }
  })

  it('when the merchants are listed, then each shows its status, keys, users and the fees per service', async () => {
    const res = await op.get('/dashboard/console/merchants')
    expect(res.body).toContain('Alpha Books')
    expect(res.body).toContain('Beta Games')
    const alphaRow = res.body.slice(
      res.body.indexOf('Alpha Books'),
      res.body.indexOf('</tr>', res.body.indexOf('Alpha Books')),
    )
    expect(alphaRow).toMatch(/class="num">1<\/td>\s*<td class="num">2<\/td>/) // one key, two users
    expect(res.body).toContain('2.5%')
    expect(res.body).toContain('0.4% + 1.00')
  })

  it('when an order_id is at two merchants, then the lookup lists both; an invoice id finds its invoice', async () => {
    const byOrder = await op.get('/dashboard/console/invoices?q=SHARED-1')
    expect(byOrder.body).toContain('2 invoices found.')
    expect(byOrder.body).toContain('Alpha Books')
    expect(byOrder.body).toContain('Beta Games')
    const byId = await op.get(`/dashboard/console/invoices?q=${paidId}`)
    expect(byId.body).toContain('1 invoice found.')
    expect(byId.body).toContain(`/dashboard/console/invoices/${paidId}`)
    const none = await op.get('/dashboard/console/invoices?q=NOPE')
    expect(none.body).toContain('No invoice has this id or order_id.')
  })

  it('when an invoice is opened, then its fields, events and deliveries are shown, read only', async () => {
    const res = await op.get(`/dashboard/console/invoices/${paidId}`)
    expect(res.body).toContain('invoice.paid')
    expect(res.body).toContain('Webhook deliveries')
    expect(res.body).toContain('http://hooks.alpha.test/x?token=s3cret')
    expect(res.body).not.toMatch(/<form method="post" action="[^"]*\/invoices\//)
    expectProblem(await asProblem(op, `/dashboard/console/invoices/${crypto.randomUUID()}`), 404, 'not_found')
  })

  it('when a delivery fails, then the health page counts it and names its endpoint without its query', async () => {
    t.clock.advance(1)
    await failDueDeliveries(t, { statusCode: 502, retryInMs: 5_000 })
    t.rt.providerMetrics.notification('stripe', 'accepted')
    t.rt.providerMetrics.notification('stripe', 'refused')
    const res = await op.get('/dashboard/console/health')
    expect(res.statusCode).toBe(200)
    const queue = res.body.slice(res.body.indexOf('id="h-queue"'), res.body.indexOf('id="h-providers"'))
    expect(queue).toMatch(/Pending<\/dt>\s*<dd>1<\/dd>/)
    expect(queue).toMatch(/Failing \(retrying\)<\/dt>\s*<dd>1<\/dd>/)
    expect(queue).toMatch(/Dead \(gave up\)<\/dt>\s*<dd>0<\/dd>/)
    expect(queue).toContain('http://hooks.alpha.test/x</code>')
    expect(queue).not.toContain('s3cret')
    const providers = res.body.slice(res.body.indexOf('id="h-providers"'), res.body.indexOf('id="h-reconcile"'))
    expect(providers).toMatch(/<code>stripe<\/code>/)
    expect(providers).toMatch(/class="num">1<\/td>\s*<td class="num">1<\/td>\s*<td class="num">0<\/td>/)
  })

  it('when an operator creates a merchant, then its first key is shown once and works on the API', async () => {
    const res = await op.post(
      '/dashboard/console/merchants',
      { name: 'Gamma Tea', default_service: 'sbp' },
      '/dashboard/console',
    )
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201)
    const apiKey = /<dt>API key<\/dt>\s*<dd><code>([^<]+)<\/code>/.exec(res.body)?.[1]
    expect(apiKey).toBeDefined()
    const created = await api(t)
      .as({ apiKey: apiKey! })
      .createInvoice({ order_id: 'G-1', amount: '10.00', currency: 'RUB' })
    expect(created.status).toBe(201)
    expect((await op.get('/dashboard/console/merchants')).body).not.toContain(apiKey!)

    const bad = await op.post('/dashboard/console/merchants', { name: '  ' }, '/dashboard/console')
    expect(bad.statusCode).toBe(400)
    expect(bad.body).toContain('name: must be 1 to 200 characters')
  })

  it('when an operator invites a user of a merchant, then the one-time link is shown', async () => {
    const res = await op.post(
      `/dashboard/console/merchants/${b.id}/users`,
      { email: 'owner@beta.test', role: 'owner' },
      '/dashboard/console',
    )
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201)
    expect(res.body).toMatch(/http:\/\/pay\.test\/dashboard\/invite\/[A-Za-z0-9_-]+/)
    expect(res.body).toContain('owner@beta.test')
    const again = await op.post(
      `/dashboard/console/merchants/${b.id}/users`,
      { email: 'owner@beta.test' },
      '/dashboard/console',
    )
    expect(again.statusCode).toBe(400)
  })

  it('when a merchant is disabled, then its sessions end and its keys fail; enabled, its keys work again', async () => {
    const user = await signedIn(t, { merchantId: b.id, email: 'second@beta.test' })
    expect((await user.get('/dashboard')).statusCode).toBe(200)
    const off = await op.post(
      `/dashboard/console/merchants/${b.id}/disable`,
      { from: 'merchant' },
      '/dashboard/console',
    )
    expect(off.statusCode).toBe(303)
    expect(off.headers.location).toBe(`/dashboard/console/merchants/${b.id}?done=disabled`)
    expect((await user.get('/dashboard')).headers.location).toBe('/dashboard/sign-in')
    expectProblem(
      await api(t).as(b).createInvoice({ order_id: 'B-2', amount: '1.00', currency: 'RUB' }),
      403,
      'merchant_disabled',
    )
    const on = await op.post(`/dashboard/console/merchants/${b.id}/enable`, {}, '/dashboard/console')
    expect(on.headers.location).toBe('/dashboard/console/merchants?done=enabled')
    // the ended session stays ended
    expect((await user.get('/dashboard')).headers.location).toBe('/dashboard/sign-in')
    expect((await api(t).as(b).createInvoice({ order_id: 'B-3', amount: '1.00', currency: 'RUB' })).status).toBe(201)
  })

  const pages = () => [
    '/dashboard/console',
    '/dashboard/console/merchants',
    `/dashboard/console/merchants/${a.id}`,
    `/dashboard/console/merchants/${b.id}`,
    '/dashboard/console/invoices?q=SHARED-1',
    `/dashboard/console/invoices/${paidId}`,
    '/dashboard/console/health',
  ]
  const actions = () =>
    [
      ['/dashboard/console/merchants', { name: 'Sneaky' }],
      [`/dashboard/console/merchants/${b.id}/disable`, {}],
      [`/dashboard/console/merchants/${a.id}/enable`, {}],
      [`/dashboard/console/merchants/${a.id}/users`, { email: 'x@alpha.test' }],
    ] as const

  it("when a merchant's owner or viewer opens a console page or posts an action, then it is 404", async () => {
    for (const who of [owner, viewer]) {
      for (const path of pages()) expectProblem(await asProblem(who, path), 404, 'not_found')
      for (const [path, form] of actions()) {
        const res = await who.post(path, form) // with the user's own CSRF token
        expect(res.statusCode, path).toBe(404)
      }
      const html = await who.get('/dashboard/console', HTML)
      expect(html.statusCode).toBe(404)
      expect(html.headers['content-type']).toMatch(/^text\/html/)
    }
    const list = await op.get('/dashboard/console/merchants')
    expect(list.body).not.toContain('Sneaky')
    expect(list.body).not.toContain('x@alpha.test')
  })

  it('when an action is posted without its CSRF token, then it is 403 csrf_failed and nothing changes', async () => {
    for (const [path, form] of actions()) {
      const res = await op.request('POST', path, { ...form })
      expect(res.statusCode, path).toBe(403)
      expect(JSON.parse(res.body)).toMatchObject({ code: 'csrf_failed' })
    }
    expect((await op.get('/dashboard/console/merchants')).body).not.toContain('Sneaky')
  })

  it('when signed out, then a console page redirects to sign-in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/console/health' })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/dashboard/sign-in')
  })
})

/** A GET as the problem document (no text/html), in the shape expectProblem reads. */
async function asProblem(c: DashboardClient, path: string) {
  const res = await c.get(path)
  return { status: res.statusCode, headers: res.headers, text: res.body, body: JSON.parse(res.body) } as never
}
