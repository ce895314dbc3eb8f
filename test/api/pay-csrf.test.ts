import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, type Answer, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

// PUBLIC_URL of buildTestApp is http://pay.test
const OWN = 'http://pay.test'

describe('POST /pay/:id/simulate — cross-site requests (CSRF)', () => {
  let t: TestApp
  /** The merchant's client; `buyer`, the payment page's (no key). */
  let shop: TestClient
  let buyer: TestClient
  const start = async (env: Record<string, string> = {}) => {
    t = await buildTestApp(env)
    shop = api(t).as(await t.merchant())
    buyer = api(t)
  }
  beforeEach(async () => start())
  afterEach(async () => t.close())

  const create = (): Promise<string> => shop.newInvoice({ amount: '10.00' })
  const simulateJson = (id: string, headers: Record<string, string>) =>
    buyer.simulate(id, { outcome: 'paid' }, { headers })
  const simulateForm = (id: string, headers: Record<string, string>) =>
    buyer.simulateForm(id, 'outcome=paid', { headers })
  const status = async (id: string) => {
    const res = await buyer.paymentStatus(id)
    expectStatus(res, 200)
    return res.body.status
  }

  const expectOriginRefused = (res: Answer) => {
    const p = expectProblem(res, 400, 'validation_failed')
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

  it.each([
    ['same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['absent', {}],
  ])(
    'when Origin is "null" (our page sends that: Referrer-Policy no-referrer) and Sec-Fetch-Site is %s, then the form post is accepted',
    async (_name, fetchSite) => {
      const id = await create()
      expect((await simulateForm(id, { origin: 'null', ...fetchSite })).status).toBe(303)
      expect(await status(id)).toBe('paid')
    },
  )

  it('when Origin is "null" and Sec-Fetch-Site says cross-site, then it is refused', async () => {
    const id = await create()
    expectOriginRefused(await simulateForm(id, { origin: 'null', 'sec-fetch-site': 'cross-site' }))
    expect(await status(id)).toBe('pending')
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

  it('when the cross-site post names an unknown invoice, then the origin is still what is refused', async () => {
    expectOriginRefused(await simulateForm('00000000-0000-7000-8000-000000000000', { origin: 'https://evil.example' }))
  })

  it('when the cross-site post carries a bad body, then the origin is still what is refused', async () => {
    const id = await create()
    expectOriginRefused(await buyer.simulateForm(id, 'outcome=bogus', { headers: { origin: 'https://evil.example' } }))
  })

  it('when the form post comes from our own origin, then it is accepted (303 back to the page)', async () => {
    const id = await create()
    const res = await simulateForm(id, { origin: OWN, 'sec-fetch-site': 'same-origin' })
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(`/pay/${id}`)
    expect(await status(id)).toBe('paid')
  })

  it('when the JSON post comes from our own origin, then it is accepted', async () => {
    const id = await create()
    const res = await simulateJson(id, { origin: OWN, 'sec-fetch-site': 'same-origin' })
    expectStatus(res, 200)
    expect(res.body.status).toBe('paid')
  })

  it('when Sec-Fetch-Site is none (a request the user made directly), then it is not refused', async () => {
    const b = await create()
    expectStatus(await simulateJson(b, { 'sec-fetch-site': 'none' }), 200)
  })

  // a page at another port or subdomain of the same site: Chromium sends Origin: null and Sec-Fetch-Site: same-site
  it('when another origin of the same site posts a form with Origin: null (by its no-referrer policy), then it is refused', async () => {
    const id = await create()
    expectOriginRefused(await simulateForm(id, { origin: 'null', 'sec-fetch-site': 'same-site' }))
    expect(await status(id)).toBe('pending')
  })

  it('when another origin of the same site posts JSON without naming its origin, then it is refused', async () => {
    const id = await create()
    expectOriginRefused(await simulateJson(id, { 'sec-fetch-site': 'same-site' }))
    expect(await status(id)).toBe('pending')
  })

  it('when there is neither Origin nor Sec-Fetch-Site (curl, server-side), then it works as before', async () => {
    const id = await create()
    expect((await simulateForm(id, {})).status).toBe(303)
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
    expectStatus(res, 200)
  })

  it.each([
    // another site's page cannot claim our Host for its own origin
    ['another site claims our Host', { origin: 'http://evil.example', host: '127.0.0.1:8080' }],
    ['the Origin names another address of ours than the Host', { origin: 'http://127.0.0.1:8080', host: 'pay.test' }],
    // the request came over http, so an https page is not this address's
    ['our Host on the other scheme', { origin: 'https://127.0.0.1:8080', host: '127.0.0.1:8080' }],
  ])('when the Origin is not the address the post came to (%s), then it is refused', async (_name, headers) => {
    const id = await create()
    expectOriginRefused(await simulateJson(id, headers))
    expect(await status(id)).toBe('pending')
  })

  describe('behind a trusted proxy that reached us over https at another host name', () => {
    const behind = { host: 'shop-pay.example', 'x-forwarded-proto': 'https', 'sec-fetch-site': 'same-origin' }
    beforeEach(async () => {
      await t.close()
      await start({ TRUST_PROXY: '1' })
    })

    it('when the Origin is http at that host name (another server there, or an injected page), then it is refused', async () => {
      const id = await create()
      expectOriginRefused(await simulateJson(id, { ...behind, origin: 'http://shop-pay.example' }))
      expect(await status(id)).toBe('pending')
    })

    it('when the Origin is https at that host name, then it is accepted', async () => {
      const id = await create()
      expectStatus(await simulateJson(id, { ...behind, origin: 'https://shop-pay.example' }), 200)
    })
  })

  describe('with a PUBLIC_URL that has a path: its origin (scheme, host, port) is what counts', () => {
    beforeEach(async () => {
      await t.close()
      await start({ PUBLIC_URL: 'https://shop.example:8443/payments' })
    })

    it('when the Origin leaves out the port of PUBLIC_URL, then it is refused', async () => {
      expectOriginRefused(await simulateJson(await create(), { origin: 'https://shop.example' }))
    })

    it('when the Origin is scheme, host and port of PUBLIC_URL, then it is accepted', async () => {
      expectStatus(await simulateJson(await create(), { origin: 'https://shop.example:8443' }), 200)
    })
  })
})
