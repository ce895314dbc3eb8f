import Fastify from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js'
import { issueApiKey } from '../../src/app/issue-api-key.js'
import { revokeApiKey } from '../../src/app/revoke-api-key.js'
import { setMerchantStatus } from '../../src/app/set-merchant-status.js'
import { AppError } from '../../src/domain/errors.js'
import { requireApiKey } from '../../src/http/plugins/auth.js'
import { api, expectProblem, expectStatus, type Answer, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

const UNKNOWN = '00000000-0000-7000-8000-000000000000'

describe('API keys (docs/api.md#authentication)', () => {
  let t: TestApp
  let m: TestMerchant
  let shop: TestClient
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    shop = api(t).as(m)
  })
  afterEach(async () => t.close())

  /** A create as `who` (by default the merchant), or with no key at all. */
  const create = (who: { apiKey: string } | null = m, orderId = 'K-1') =>
    (who === null ? api(t) : api(t).as(who)).createInvoice({ order_id: orderId, amount: 1, currency: 'RUB' })

  it.each([
    ['POST /api/v1/invoices', () => create(null)],
    ['GET /api/invoice/getInfo', () => api(t).getInfo({ merchant_id: m.id, order_id: 'x' })],
    ['GET /api/v1/invoices', () => api(t).listInvoices()],
    ['GET /api/v1/invoices/{id}', () => api(t).getInvoice(UNKNOWN)],
  ])('when no key is sent to %s, then 401 missing_api_key', async (_route, send) => {
    expectProblem(await send(), 401, 'missing_api_key')
  })

  it('when a merchant route answers, whatever the answer, then Cache-Control: no-store (the key is no Authorization header a shared cache would respect)', async () => {
    const created = await create()
    expectStatus(created, 201)
    const id = created.body.order_id
    const answers: Answer[] = [
      created,
      await create(), // a repeat: 200
      await shop.getInfo({ merchant_id: m.id, invoice_id: id }),
      await shop.getInvoice(id),
      await shop.listInvoices(),
      await shop.listDeliveries(),
      await api(t).getInvoice(id), // 401
      await shop.getInvoice(UNKNOWN), // 404
    ]
    for (const res of answers) {
      expect(res.headers['cache-control'], `${res.status} ${res.text.slice(0, 80)}`).toBe('no-store')
    }
  })

  it('when the QR image is served, then it stays cacheable: it is public and never changes', async () => {
    const id = await shop.newInvoice()
    expect((await api(t).qr(id)).headers['cache-control']).toBe('public, max-age=86400, immutable')
  })

  it.each([
    ['a well-formed key nobody holds', () => 'mk_' + 'A'.repeat(43)],
    ['nonsense', () => 'nonsense'],
    [
      "the merchant's key with its last character changed",
      (k: string) => k.slice(0, -1) + (k.endsWith('A') ? 'B' : 'A'),
    ],
    ["the merchant's key with a character more", (k: string) => `${k}x`],
  ])('when the key sent is %s, then 401 invalid_api_key', async (_name, keyFrom) => {
    expectProblem(await create({ apiKey: keyFrom(m.apiKey) }), 401, 'invalid_api_key')
  })

  it('when a merchant holds several keys, then each works', async () => {
    const second = await issueApiKey(t.rt.deps, m.id)
    expectStatus(await create(m, 'K-a'), 201)
    expectStatus(await create(second, 'K-b'), 201)
  })

  it('when one of several keys is revoked, then it fails at once (cache off) and the others still work', async () => {
    const second = await issueApiKey(t.rt.deps, m.id)
    await revokeApiKey(t.rt.deps, m.apiKeyId)
    expectProblem(await create(m, 'K-c'), 401, 'invalid_api_key')
    expectStatus(await create(second, 'K-d'), 201)
  })

  it('when the merchant is disabled, then 403 merchant_disabled', async () => {
    await setMerchantStatus(t.rt.deps, m.id, 'disabled')
    expectProblem(await create(), 403, 'merchant_disabled')
  })

  it('when a disabled merchant is enabled again, then its key works', async () => {
    await setMerchantStatus(t.rt.deps, m.id, 'disabled')
    await setMerchantStatus(t.rt.deps, m.id, 'active')
    expectStatus(await create(), 201)
  })

  it('when keys are cached, then a revocation still takes effect within the cache lifetime', async () => {
    const t2 = await buildTestApp({ KEY_CACHE_TTL: '2' })
    const m2 = await t2.merchant()
    const req = () => api(t2).as(m2).listInvoices()
    expectStatus(await req(), 200)
    await revokeApiKey(t2.rt.deps, m2.apiKeyId)
    t2.clock.advance(2)
    expectProblem(await req(), 401, 'invalid_api_key')
    await t2.close()
  })

  it('when the clock steps back after a key was cached, then a revocation still takes effect within the cache lifetime', async () => {
    const t2 = await buildTestApp({ KEY_CACHE_TTL: '2' })
    const m2 = await t2.merchant()
    const req = () => api(t2).as(m2).listInvoices()
    expectStatus(await req(), 200)
    t2.clock.advance(-3600) // NTP correcting a clock that ran an hour fast
    await revokeApiKey(t2.rt.deps, m2.apiKeyId)
    t2.clock.advance(2)
    // the entry looked 3,598 s younger than it was: accepted for another hour
    expectProblem(await req(), 401, 'invalid_api_key')
    await t2.close()
  })

  it('when the database holds keys, then only their SHA-256 hashes are stored', async () => {
    const found = await t.rt.store.apiKeys.listByMerchant(m.id as never)
    expect(found).toHaveLength(1)
    expect(found[0]?.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(found)).not.toContain(m.apiKey)
    expect(m.apiKey).toMatch(/^mk_[A-Za-z0-9_-]{43}$/)
  })

  it("when a merchant asks for another merchant's invoice by id, then 404 as if it did not exist", async () => {
    const id = await shop.newInvoice()
    const other = api(t).as(await t.merchant('Other'))
    expectProblem(await other.getInvoice(id), 404, 'invoice_not_found')
  })

  it("when a merchant lists invoices, then another merchant's are not among them", async () => {
    await shop.newInvoice()
    const list = await api(t)
      .as(await t.merchant('Other'))
      .listInvoices()
    expectStatus(list, 200)
    expect(list.body.data).toEqual([])
  })
})

describe('The API key hook: no promise when nothing is waited for (docs/performance.md)', () => {
  it('when the key is cached and the limits are in memory, then the hook is done before it returns; a key looked up in the store is done later', async () => {
    const t = await buildTestApp({ KEY_CACHE_TTL: '60' })
    const m = await t.merchant()
    const hook = requireApiKey(
      t.rt.useCases.accounts.authenticate,
      createMemoryRateLimiter({ rps: 100, burst: 100, authFailLimit: 10, now: Date.now }),
    )
    // each request: whether the hook called back before it returned, and with which error
    const seen: Array<[boolean, string | undefined]> = []
    const app = Fastify()
    app.addHook('onRequest', function (request, reply, done) {
      let returned = false
      hook.call(this, request, reply, (err?: Error) => {
        seen.push([!returned, err instanceof AppError ? err.code : err?.message])
        done(err)
      })
      returned = true
    })
    app.get('/', async (request) => ({ merchant: request.merchant.id }))
    try {
      for (const key of [m.apiKey, m.apiKey, 'nonsense', undefined]) {
        const res = await app.inject({ url: '/', headers: key === undefined ? {} : { 'x-api-key': key } })
        if (key === m.apiKey) expect(res.json()).toEqual({ merchant: m.id })
      }
      expect(seen).toEqual([
        [false, undefined], // the first: looked up in the store
        [true, undefined], // then cached
        [true, 'invalid_api_key'], // refused without a lookup, the failure counted
        [true, 'missing_api_key'],
      ])
    } finally {
      await app.close()
      await t.close()
    }
  })
})
