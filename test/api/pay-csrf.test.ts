import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, json, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

// PUBLIC_URL of buildTestApp is http://pay.test
const OWN = 'http://pay.test'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

describe('POST /pay/:id/simulate — cross-site requests (CSRF)', () => {
  let t: TestApp
  let m: TestMerchant
  let n = 0
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
  })
  afterEach(async () => t.close())

  const create = async (): Promise<string> => {
    n += 1
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      ...json({ order_id: `C-${n}`, amount: '10.00', currency: 'RUB' }),
      headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
    })
    expect(res.statusCode).toBe(201)
    return res.json().order_id
  }
  const simulateJson = (id: string, headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: `/pay/${id}/simulate`,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ outcome: 'paid' }),
    })
  const simulateForm = (id: string, headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: `/pay/${id}/simulate`,
      headers: { ...FORM, ...headers },
      payload: 'outcome=paid',
    })
  const status = async (id: string) => (await t.app.inject({ url: `/pay/${id}/status` })).json().status

  const expectOriginRefused = (res: { statusCode: number; headers: Record<string, unknown>; json: () => any }) => {
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const p = res.json()
    expect(p).toMatchObject({ type: 'about:blank', status: 400, code: 'validation_failed' })
    expect(p.errors).toEqual([
      { field: 'origin', message: expect.stringMatching(/cross-(site|origin) request refused/) },
    ])
    expect(p.detail).toContain('origin')
  }

  it.each([
    ['another site', 'https://evil.example'],
    ['our host on another scheme', 'https://pay.test'],
    ['our host on another port', 'http://pay.test:8080'],
    ['a subdomain', 'http://x.pay.test'],
    ['garbage', 'not a url'],
  ])(
    'when a form post comes with an Origin of %s, then 400 validation_failed naming origin and the status is unchanged',
    async (_name, origin) => {
      const id = await create()
      expectOriginRefused(await simulateForm(id, { origin }))
      expect(await status(id)).toBe('pending')
    },
  )

  it('when Origin is "null" (our page sends that: Referrer-Policy no-referrer), then Sec-Fetch-Site decides', async () => {
    const a = await create()
    expect((await simulateForm(a, { origin: 'null', 'sec-fetch-site': 'same-origin' })).statusCode).toBe(303)
    expect(await status(a)).toBe('paid')
    const b = await create()
    expect((await simulateForm(b, { origin: 'null' })).statusCode).toBe(303)
    const c = await create()
    expectOriginRefused(await simulateForm(c, { origin: 'null', 'sec-fetch-site': 'cross-site' }))
    expect(await status(c)).toBe('pending')
  })

  it('when a JSON post comes from another origin, then it is refused as well', async () => {
    const id = await create()
    expectOriginRefused(await simulateJson(id, { origin: 'https://evil.example' }))
    expect(await status(id)).toBe('pending')
  })

  it('when Sec-Fetch-Site says cross-site (without Origin), then it is refused', async () => {
    const id = await create()
    expectOriginRefused(await simulateForm(id, { 'sec-fetch-site': 'cross-site' }))
    expect(await status(id)).toBe('pending')
  })

  it('when Sec-Fetch-Site says cross-site even with our own Origin, then it is refused', async () => {
    const id = await create()
    expectOriginRefused(await simulateJson(id, { origin: OWN, 'sec-fetch-site': 'cross-site' }))
    expect(await status(id)).toBe('pending')
  })

  it('when the cross-site post names an unknown invoice or carries a bad body, then the origin is still what is refused', async () => {
    expectOriginRefused(await simulateForm('00000000-0000-7000-8000-000000000000', { origin: 'https://evil.example' }))
    const id = await create()
    const res = await t.app.inject({
      method: 'POST',
      url: `/pay/${id}/simulate`,
      headers: { ...FORM, origin: 'https://evil.example' },
      payload: 'outcome=bogus',
    })
    expectOriginRefused(res)
  })

  it('when the form post comes from our own origin, then it is accepted (303 back to the page)', async () => {
    const id = await create()
    const res = await simulateForm(id, { origin: OWN, 'sec-fetch-site': 'same-origin' })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe(`/pay/${id}`)
    expect(await status(id)).toBe('paid')
  })

  it('when the JSON post comes from our own origin, then it is accepted', async () => {
    const id = await create()
    const res = await simulateJson(id, { origin: OWN, 'sec-fetch-site': 'same-origin' })
    expect(res.statusCode).toBe(200)
    expect(res.json().status).toBe('paid')
  })

  it('when Sec-Fetch-Site is none (a request the user made directly), then it is not refused', async () => {
    const b = await create()
    expect((await simulateJson(b, { 'sec-fetch-site': 'none' })).statusCode).toBe(200)
  })

  it('when another origin of the same site posts without naming its origin (Origin: null by its no-referrer policy, or none), then it is refused', async () => {
    // a page at another port or subdomain of the same site: Chromium sends Origin: null and Sec-Fetch-Site: same-site
    const a = await create()
    expectOriginRefused(await simulateForm(a, { origin: 'null', 'sec-fetch-site': 'same-site' }))
    const b = await create()
    expectOriginRefused(await simulateJson(b, { 'sec-fetch-site': 'same-site' }))
    expect([await status(a), await status(b)]).toEqual(['pending', 'pending'])
    // the page's own form post: Origin: null, same-origin
    const c = await create()
    expect((await simulateForm(c, { origin: 'null', 'sec-fetch-site': 'same-origin' })).statusCode).toBe(303)
  })

  it('when there is neither Origin nor Sec-Fetch-Site (curl, server-side), then it works as before', async () => {
    const id = await create()
    expect((await simulateForm(id, {})).statusCode).toBe(303)
    expect(await status(id)).toBe('paid')
  })

  it('when the page was opened at another address of this server, then a post with that origin and that Host is accepted', async () => {
    // PUBLIC_URL says pay.test; the buyer opened http://127.0.0.1:8080/pay/… (the address the start-up log prints)
    const id = await create()
    const res = await simulateJson(id, {
      origin: 'http://127.0.0.1:8080',
      host: '127.0.0.1:8080',
      'sec-fetch-site': 'same-origin',
    })
    expect(res.statusCode, res.body).toBe(200)
    // another site's page cannot claim our Host for its own origin
    const other = await create()
    expectOriginRefused(await simulateJson(other, { origin: 'http://evil.example', host: '127.0.0.1:8080' }))
    expectOriginRefused(await simulateJson(other, { origin: 'http://127.0.0.1:8080', host: 'pay.test' }))
    // our Host on the other scheme: the request came over http, so an https page is not this address's
    expectOriginRefused(await simulateJson(other, { origin: 'https://127.0.0.1:8080', host: '127.0.0.1:8080' }))
    expect(await status(other)).toBe('pending')
  })

  it('when behind a trusted proxy the page was opened over https at another host name, then only an https Origin of it is accepted', async () => {
    await t.close()
    t = await buildTestApp({ TRUST_PROXY: '1' })
    m = await t.merchant()
    const behind = { host: 'shop-pay.example', 'x-forwarded-proto': 'https', 'sec-fetch-site': 'same-origin' }
    const id = await create()
    // a page at http://shop-pay.example (another server there, or an injected one) is not ours
    expectOriginRefused(await simulateJson(id, { ...behind, origin: 'http://shop-pay.example' }))
    expect(await status(id)).toBe('pending')
    const res = await simulateJson(id, { ...behind, origin: 'https://shop-pay.example' })
    expect(res.statusCode, res.body).toBe(200)
  })

  it('when PUBLIC_URL has a path, then its origin (scheme, host, port) is what counts', async () => {
    await t.close()
    t = await buildTestApp({ PUBLIC_URL: 'https://shop.example:8443/payments' })
    m = await t.merchant()
    const id = await create()
    expectOriginRefused(await simulateJson(id, { origin: 'https://shop.example' }))
    expect((await simulateJson(id, { origin: 'https://shop.example:8443' })).statusCode).toBe(200)
  })
})
