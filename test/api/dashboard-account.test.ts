/**
 * The dashboard's account pages over HTTP (docs/dashboard.md#webhooks, #api-keys, #team, #settings): each page and
 * action; another merchant's anything → 404; a viewer's POST → 403 forbidden; a POST without its CSRF token → 403
 * csrf_failed. One app for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Merchant } from '../../src/domain/merchant.js'
import type { MerchantId } from '../../src/domain/ids.js'
import { api, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { FAST_PASSWORDS, signedIn, type DashboardClient, type InjectResponse } from '../helpers/dashboard.js'
import { sleep, startReceiver, type Receiver } from '../helpers/webhook-receiver.js'

let t: TestApp
let rx: Receiver
let a: TestMerchant
let b: TestMerchant
let owner: DashboardClient
let viewer: DashboardClient
let other: DashboardClient
let operator: DashboardClient

beforeAll(async () => {
  rx = await startReceiver()
  t = await buildTestApp(
    { CALLBACK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0' },
    { realClock: true, webhooks: true, passwords: FAST_PASSWORDS },
  )
  a = await t.merchant('Blue Mug')
  b = await t.merchant('Other Shop')
  rx.secrets = [a.webhookSecret]
  owner = await signedIn(t, { merchantId: a.id, email: 'owner@bluemug.example' })
  viewer = await signedIn(t, { merchantId: a.id, email: 'viewer@bluemug.example', role: 'viewer' })
  other = await signedIn(t, { merchantId: b.id, email: 'owner@other.example' })
  operator = await signedIn(t, { admin: true, email: 'ops@pay.example' })
})
afterAll(async () => {
  await t?.close()
  await rx?.close()
})

const code = (res: InjectResponse) => (JSON.parse(res.body) as { code: string }).code
const expectCode = (res: InjectResponse, status: number, c: string) => {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status)
  expect(code(res)).toBe(c)
}
const merchantOf = async (m: TestMerchant): Promise<Merchant> =>
  (await t.rt.store.merchants.findById(m.id as MerchantId))!

/** Every action of a page refused to a viewer (403 forbidden), without CSRF (403 csrf_failed) and to an operator (404). */
async function refusedToAllButOwner(url: string, form: Record<string, string>, from: string): Promise<void> {
  expectCode(await viewer.post(url, form, from), 403, 'forbidden')
  expectCode(await owner.request('POST', url, form), 403, 'csrf_failed')
  expectCode(await operator.post(url, form), 404, 'not_found')
}

describe('/dashboard/webhooks (docs/dashboard.md#webhooks)', () => {
  let failedInvoice: string
  let paidInvoices: string[]

  beforeAll(async () => {
    const shop = api(t).as(a)
    rx.respond = (h) => (h.json.data['order_id'] === 'W-2' ? 500 : 200)
    paidInvoices = []
    for (const order of ['W-1', 'W-2', 'W-3']) {
      const id = await shop.newInvoice({ order_id: order, amount: 10, currency: 'RUB', callback_url: rx.url })
      expectStatus(await api(t).simulate(id, { outcome: 'paid' }), 200)
      if (order === 'W-2') failedInvoice = id
      else paidInvoices.push(id)
    }
    for (;;) {
      const log = await shop.listDeliveries()
      expectStatus(log, 200)
      if (log.body.data.length === 3 && log.body.data.every((d) => d.status !== 'pending')) break
      await sleep(20)
    }
  })

  it('when the owner opens the page, then the log lists the failure first, then the newest, with answer codes', async () => {
    const res = await owner.get('/dashboard/webhooks')
    expect(res.statusCode).toBe(200)
    const order = [...res.body.matchAll(/href="\/dashboard\/invoices\/([0-9a-f-]{36})"/g)].map((m) => m[1])
    expect(order).toEqual([failedInvoice, paidInvoices[1], paidInvoices[0]])
    expect(res.body).toContain('<td class="num">500</td>')
    expect(res.body).toContain('<td class="num">200</td>')
    expect(res.body).toContain('Only the current secret signs.')
  })

  it('when the log is paged one at a time, then every delivery comes once, failures first', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await t.rt.useCases.webhooks.listDeliveries(await merchantOf(a), {
        failuresFirst: true,
        limit: '1',
        ...(cursor !== undefined && { cursor }),
      })
      seen.push(...page.deliveries.map((d) => d.status))
      cursor = page.nextCursor ?? undefined
    } while (cursor !== undefined)
    expect(seen).toEqual(['failed', 'succeeded', 'succeeded'])
  })

  it('when another merchant opens the page, then none of these deliveries is there', async () => {
    const res = await other.get('/dashboard/webhooks')
    expect(res.statusCode).toBe(200)
    expect(res.body).not.toContain(failedInvoice)
    expect(res.body).toContain('No webhooks have been sent yet.')
  })

  it('when the owner sends a test event, then the page shows what the endpoint answered', async () => {
    const before = rx.received.length
    const res = await owner.post('/dashboard/webhooks/test', { url: rx.url }, '/dashboard/webhooks')
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
    expect(res.body).toContain('The endpoint answered: <strong>200</strong>')
    expect(rx.received.slice(before).map((h) => h.json.type)).toEqual(['webhook.test'])
    expectCode(
      await owner.post('/dashboard/webhooks/test', { url: 'not a url' }, '/dashboard/webhooks'),
      400,
      'validation_failed',
    )
  })

  it('when the owner rotates the secret, then the new one is shown once and the old one signs until the grace ends', async () => {
    const res = await owner.post('/dashboard/webhooks/rotate', {}, '/dashboard/webhooks')
    expect(res.statusCode).toBe(200)
    const secret = /<code>(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(res.body)?.[1]
    expect(secret).toBeDefined()
    expect(res.body).toMatch(/The previous secret keeps signing until <strong>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/strong>/)
    const again = await owner.get('/dashboard/webhooks')
    expect(again.body).not.toContain(secret)
    expect(again.body).toContain('The previous secret keeps signing until')
    rx.secrets = [secret!]
    const before = rx.received.length
    await owner.post('/dashboard/webhooks/test', { url: rx.url }, '/dashboard/webhooks')
    expect(rx.received.slice(before)[0]?.verifiedWith).toEqual([secret])
  })

  it('when a viewer looks, then the page is there without its forms; its POSTs, and any without CSRF, are refused', async () => {
    const res = await viewer.get('/dashboard/webhooks')
    expect(res.statusCode).toBe(200)
    expect(res.body).not.toContain('action="/dashboard/webhooks/rotate"')
    await refusedToAllButOwner('/dashboard/webhooks/rotate', {}, '/dashboard/webhooks')
    await refusedToAllButOwner('/dashboard/webhooks/test', { url: rx.url }, '/dashboard/webhooks')
    expectCode(await operator.get('/dashboard/webhooks'), 404, 'not_found')
  })
})

describe('/dashboard/api-keys (docs/dashboard.md#api-keys)', () => {
  let created: { id: string; apiKey: string; prefix: string }

  it('when the owner creates a named key, then it is shown once, works on the API, and its last use appears', async () => {
    const res = await owner.post('/dashboard/api-keys', { name: 'Checkout server' }, '/dashboard/api-keys')
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201)
    const apiKey = /<code>(mk_[A-Za-z0-9_-]{43})<\/code>/.exec(res.body)?.[1]
    expect(apiKey).toBeDefined()
    const key = (await t.rt.useCases.accounts.listApiKeys(a.id)).find((k) => k.name === 'Checkout server')!
    created = { id: key.id, apiKey: apiKey!, prefix: key.prefix }
    expect(key.lastUsedAt).toBeNull()
    const page = await owner.get('/dashboard/api-keys')
    expect(page.body).not.toContain(apiKey)
    expect(page.body).toContain(`<code>${key.prefix}…</code>`)

    await api(t).as({ apiKey: apiKey! }).newInvoice({ order_id: 'K-1', amount: 10, currency: 'RUB' })
    let used: Date | null = null
    for (let i = 0; i < 100 && used === null; i++) {
      await sleep(10)
      used = (await t.rt.useCases.accounts.listApiKeys(a.id)).find((k) => k.id === key.id)!.lastUsedAt
    }
    expect(used).not.toBeNull()
    const row = (await owner.get('/dashboard/api-keys')).body.split('<tr>').find((r) => r.includes('Checkout server'))
    expect(row).not.toContain('never')
    expect(row).toContain(used!.toISOString().slice(0, 16).replace('T', ' '))
  })

  it('when a name is missing, then 400 validation_failed names the field and no key is made', async () => {
    const before = (await t.rt.useCases.accounts.listApiKeys(a.id)).length
    const res = await owner.post('/dashboard/api-keys', { name: '  ' }, '/dashboard/api-keys')
    expectCode(res, 400, 'validation_failed')
    expect(res.body).toContain('name')
    expect(await t.rt.useCases.accounts.listApiKeys(a.id)).toHaveLength(before)
  })

  it("when another merchant's owner revokes the key, then 404 and it still works; the viewer, no CSRF, an operator: refused", async () => {
    expect((await other.get('/dashboard/api-keys')).body).not.toContain(created.prefix)
    expectCode(
      await other.post(`/dashboard/api-keys/${created.id}/revoke`, {}, '/dashboard/api-keys'),
      404,
      'not_found',
    )
    await refusedToAllButOwner(`/dashboard/api-keys/${created.id}/revoke`, {}, '/dashboard/api-keys')
    await refusedToAllButOwner('/dashboard/api-keys', { name: 'x' }, '/dashboard/api-keys')
    expect(await api(t).as(created).newInvoice({ order_id: 'K-2', amount: 10, currency: 'RUB' })).toBeDefined()
  })

  it('when the owner revokes the key, then the API refuses it with 401 invalid_api_key', async () => {
    const res = await owner.post(`/dashboard/api-keys/${created.id}/revoke`, {}, '/dashboard/api-keys')
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('The key is revoked')
    const refused = await api(t).as(created).createInvoice({ order_id: 'K-3', amount: 10, currency: 'RUB' })
    expect(refused.status).toBe(401)
    expectCode(
      await owner.post(`/dashboard/api-keys/${created.id}/revoke`, {}, '/dashboard/api-keys'),
      404,
      'not_found',
    )
  })
})

describe('/dashboard/team (docs/dashboard.md#team)', () => {
  const userId = async (email: string) =>
    (await t.rt.useCases.users.listTeam(a.id as MerchantId)).find((m) => m.user.email === email)!.user.id

  it('when the owner opens the page, then it lists the users with role, two-factor and last sign-in', async () => {
    const res = await owner.get('/dashboard/team')
    expect(res.statusCode).toBe(200)
    const row = res.body.split('<tr>').find((r) => r.includes('viewer@bluemug.example'))!
    expect(row).toMatch(/<td>viewer<\/td>\s*<td>off<\/td>\s*<td>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/td>/)
    expect(res.body).not.toContain('owner@other.example')
  })

  it('when the owner invites a user, then the one-time link is on the page and sets their password', async () => {
    const res = await owner.post('/dashboard/team', { email: 'new@bluemug.example', role: 'viewer' }, '/dashboard/team')
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201)
    expect(res.body).toContain(`user:    new@bluemug.example (viewer of merchant ${a.id})`)
    const link = /link: {4}(http:\/\/pay\.test\/dashboard\/invite\/[A-Za-z0-9_-]+)/.exec(res.body)?.[1]
    expect(link).toBeDefined()
    expect((await owner.get(new URL(link!).pathname)).statusCode).toBe(200)
    expectCode(
      await owner.post('/dashboard/team', { email: 'new@bluemug.example', role: 'viewer' }, '/dashboard/team'),
      400,
      'validation_failed',
    )
  })

  it('when the owner changes a role, then it holds at once; the last owner cannot be demoted or removed', async () => {
    const viewerId = await userId('viewer@bluemug.example')
    const ownerId = await userId('owner@bluemug.example')
    const res = await owner.post(`/dashboard/team/${viewerId}/role`, { role: 'owner' }, '/dashboard/team')
    expect(res.statusCode).toBe(303)
    expect((await viewer.post('/dashboard/webhooks/rotate', {}, '/dashboard/webhooks')).statusCode).toBe(200)
    await owner.post(`/dashboard/team/${viewerId}/role`, { role: 'viewer' }, '/dashboard/team')
    expectCode(await viewer.post('/dashboard/webhooks/rotate', {}, '/dashboard/webhooks'), 403, 'forbidden')

    const demote = await owner.request(
      'POST',
      `/dashboard/team/${ownerId}/role`,
      { csrf: await owner.csrf('/dashboard/team'), role: 'viewer' },
      { accept: 'text/html' },
    )
    expect(demote.statusCode).toBe(400)
    expect(demote.body).toContain('the last owner can be neither removed nor made a viewer')
    expectCode(await owner.post(`/dashboard/team/${ownerId}/remove`, {}, '/dashboard/team'), 400, 'validation_failed')
    expect((await owner.get('/dashboard/team')).statusCode).toBe(200)
  })

  it("when another merchant's owner acts on these users, then 404; a viewer, no CSRF, an operator: refused", async () => {
    const viewerId = await userId('viewer@bluemug.example')
    expectCode(
      await other.post(`/dashboard/team/${viewerId}/role`, { role: 'owner' }, '/dashboard/team'),
      404,
      'not_found',
    )
    expectCode(await other.post(`/dashboard/team/${viewerId}/remove`, {}, '/dashboard/team'), 404, 'not_found')
    await refusedToAllButOwner(`/dashboard/team/${viewerId}/role`, { role: 'owner' }, '/dashboard/team')
    await refusedToAllButOwner(`/dashboard/team/${viewerId}/remove`, {}, '/dashboard/team')
    await refusedToAllButOwner('/dashboard/team', { email: 'x@bluemug.example', role: 'viewer' }, '/dashboard/team')
  })

  it('when the owner removes a user, then their session is gone at once and the address can be invited again', async () => {
    const gone = await signedIn(t, { merchantId: a.id, email: 'leaving@bluemug.example', role: 'viewer' })
    expect((await gone.get('/dashboard/team')).statusCode).toBe(200)
    const res = await owner.post(
      `/dashboard/team/${await userId('leaving@bluemug.example')}/remove`,
      {},
      '/dashboard/team',
    )
    expect(res.statusCode).toBe(303)
    const after = await gone.get('/dashboard/team')
    expect([after.statusCode, after.headers.location]).toEqual([303, '/dashboard/sign-in'])
    expect((await owner.get('/dashboard/team')).body).not.toContain('leaving@bluemug.example')
    const again = await owner.post(
      '/dashboard/team',
      { email: 'leaving@bluemug.example', role: 'viewer' },
      '/dashboard/team',
    )
    expect(again.statusCode).toBe(201)
  })
})

describe('/dashboard/settings (docs/dashboard.md#settings)', () => {
  it('when the owner saves a name and a service, then the payment page shows the name; bad values → 400 naming the field', async () => {
    const res = await owner.post(
      '/dashboard/settings',
      { name: ' Blue Mug Roasters ', default_service: 'card' },
      '/dashboard/settings',
    )
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
    expect(res.body).toContain('Settings saved.')
    expect((await merchantOf(a)).name).toBe('Blue Mug Roasters')
    const id = await api(t).as(a).newInvoice({ order_id: 'S-1', amount: 10, currency: 'RUB' })
    expect((await t.app.inject({ method: 'GET', url: `/pay/${id}` })).body).toContain('Blue Mug Roasters')

    const badName = await owner.post(
      '/dashboard/settings',
      { name: '', default_service: 'card' },
      '/dashboard/settings',
    )
    expectCode(badName, 400, 'validation_failed')
    expect(JSON.parse(badName.body).errors).toEqual([{ field: 'name', message: 'must be 1 to 200 characters' }])
    const badService = await owner.post(
      '/dashboard/settings',
      { name: 'X', default_service: 'nope' },
      '/dashboard/settings',
    )
    expectCode(badService, 400, 'validation_failed')
    expect(JSON.parse(badService.body).errors[0].field).toBe('default_service')
    expect((await merchantOf(a)).name).toBe('Blue Mug Roasters')
  })

  it('when another merchant, a viewer, a form without CSRF or an operator saves, then nothing of this merchant changes', async () => {
    expect((await other.get('/dashboard/settings')).body).toContain('value="Other Shop"')
    await other.post('/dashboard/settings', { name: 'Hijacked', default_service: 'card' }, '/dashboard/settings')
    expect((await merchantOf(a)).name).toBe('Blue Mug Roasters')
    expect((await viewer.get('/dashboard/settings')).body).toContain('disabled')
    await refusedToAllButOwner(
      '/dashboard/settings',
      { name: 'Viewer', default_service: 'card' },
      '/dashboard/settings',
    )
    expect((await merchantOf(a)).name).toBe('Blue Mug Roasters')
  })
})

describe('the account pages in Russian (docs/dashboard.md#pages)', () => {
  it('when ?lang=ru is asked for, then each page answers in Russian', async () => {
    for (const [path, title] of [
      ['/dashboard/webhooks', 'Журнал доставки'],
      ['/dashboard/api-keys', 'API-ключи'],
      ['/dashboard/team', 'Пригласить пользователя'],
      ['/dashboard/settings', 'Название на странице оплаты'],
    ] as const) {
      const res = await owner.get(`${path}?lang=ru`)
      expect([res.statusCode, res.body.includes(title)], path).toEqual([200, true])
      expect(res.body).toContain('<html lang="ru">')
    }
  })
})
