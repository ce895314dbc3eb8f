import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { issueApiKey } from '../../src/app/issue-api-key.js'
import { revokeApiKey } from '../../src/app/revoke-api-key.js'
import { setMerchantStatus } from '../../src/app/set-merchant-status.js'
import { buildTestApp, json, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

describe('API keys (API.md B1)', () => {
  let t: TestApp
  let m: TestMerchant
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
  })
  afterEach(async () => t.close())

  const create = (key: string | undefined, orderId = 'K-1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      ...json({ order_id: orderId, amount: 1, currency: 'RUB' }),
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }) },
    })

  it('when no key is sent, then 401 missing_api_key on every merchant endpoint', async () => {
    for (const res of [
      await create(undefined),
      await t.app.inject({ url: `/api/invoice/getInfo?merchant_id=${m.id}&order_id=x` }),
      await t.app.inject({ url: '/api/v1/invoices' }),
      await t.app.inject({ url: '/api/v1/invoices/00000000-0000-7000-8000-000000000000' }),
    ]) {
      expect(res.statusCode).toBe(401)
      expect(res.headers['content-type']).toMatch(/problem\+json/)
      expect(res.json().code).toBe('missing_api_key')
    }
  })

  it('when a merchant route answers, whatever the answer, then Cache-Control: no-store (the key is no Authorization header a shared cache would respect)', async () => {
    const created = await create(m.apiKey)
    expect(created.statusCode).toBe(201)
    const id = created.json().order_id
    for (const res of [
      created,
      await create(m.apiKey), // a repeat: 200
      await t.app.inject({
        url: `/api/invoice/getInfo?merchant_id=${m.id}&invoice_id=${id}`,
        headers: { 'x-api-key': m.apiKey },
      }),
      await t.app.inject({ url: `/api/v1/invoices/${id}`, headers: { 'x-api-key': m.apiKey } }),
      await t.app.inject({ url: '/api/v1/invoices', headers: { 'x-api-key': m.apiKey } }),
      await t.app.inject({ url: '/api/v1/webhooks/deliveries', headers: { 'x-api-key': m.apiKey } }),
      await t.app.inject({ url: `/api/v1/invoices/${id}` }), // 401
      await t.app.inject({
        url: '/api/v1/invoices/00000000-0000-7000-8000-000000000000',
        headers: { 'x-api-key': m.apiKey },
      }), // 404
    ]) {
      expect(res.headers['cache-control'], `${res.statusCode} ${res.body.slice(0, 80)}`).toBe('no-store')
    }
    // the QR image stays cacheable: it is public and never changes
    expect((await t.app.inject({ url: `/qr/${id}.png` })).headers['cache-control']).toBe(
      'public, max-age=86400, immutable',
    )
  })

  it('when an unknown or malformed key is sent, then 401 invalid_api_key', async () => {
    for (const key of [
      'mk_' + 'A'.repeat(43),
      'nonsense',
      m.apiKey.slice(0, -1) + (m.apiKey.endsWith('A') ? 'B' : 'A'),
      `${m.apiKey}x`,
    ]) {
      const res = await create(key)
      expect(res.statusCode).toBe(401)
      expect(res.json().code).toBe('invalid_api_key')
    }
  })

  it('when a merchant holds several keys, then each works; a revoked one fails at once (cache off)', async () => {
    const second = await issueApiKey(t.rt.deps, m.id)
    expect((await create(m.apiKey, 'K-a')).statusCode).toBe(201)
    expect((await create(second.apiKey, 'K-b')).statusCode).toBe(201)
    await revokeApiKey(t.rt.deps, m.apiKeyId)
    expect((await create(m.apiKey, 'K-c')).json().code).toBe('invalid_api_key')
    expect((await create(second.apiKey, 'K-d')).statusCode).toBe(201)
  })

  it('when the merchant is disabled, then 403 merchant_disabled; enabled again, it works', async () => {
    await setMerchantStatus(t.rt.deps, m.id, 'disabled')
    const res = await create(m.apiKey)
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('merchant_disabled')
    await setMerchantStatus(t.rt.deps, m.id, 'active')
    expect((await create(m.apiKey)).statusCode).toBe(201)
  })

  it('when keys are cached, then a revocation still takes effect within the cache lifetime', async () => {
    const t2 = await buildTestApp({ KEY_CACHE_TTL: '2' })
    const m2 = await t2.merchant()
    const req = () => t2.app.inject({ url: '/api/v1/invoices', headers: { 'x-api-key': m2.apiKey } })
    expect((await req()).statusCode).toBe(200)
    await revokeApiKey(t2.rt.deps, m2.apiKeyId)
    t2.clock.advance(2)
    expect((await req()).json().code).toBe('invalid_api_key')
    await t2.close()
  })

  it('when the clock steps back after a key was cached, then a revocation still takes effect within the cache lifetime', async () => {
    const t2 = await buildTestApp({ KEY_CACHE_TTL: '2' })
    const m2 = await t2.merchant()
    const req = () => t2.app.inject({ url: '/api/v1/invoices', headers: { 'x-api-key': m2.apiKey } })
    expect((await req()).statusCode).toBe(200)
    t2.clock.advance(-3600) // NTP correcting a clock that ran an hour fast
    await revokeApiKey(t2.rt.deps, m2.apiKeyId)
    t2.clock.advance(2)
    // the entry looked 3,598 s younger than it was: accepted for another hour
    expect((await req()).json().code).toBe('invalid_api_key')
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
    const inv = (await create(m.apiKey)).json()
    const other = await t.merchant('Other')
    const res = await t.app.inject({ url: `/api/v1/invoices/${inv.order_id}`, headers: { 'x-api-key': other.apiKey } })
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('invoice_not_found')
    const list = await t.app.inject({ url: '/api/v1/invoices', headers: { 'x-api-key': other.apiKey } })
    expect(list.json().data).toEqual([])
  })
})
