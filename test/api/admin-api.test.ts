import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, type Answer } from '../helpers/api.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

const UNKNOWN = '00000000-0000-7000-8000-000000000000'

describe('the admin API (docs/admin-api.md)', () => {
  let t: TestApp
  let token: string
  let tokenId: string
  beforeEach(async () => {
    t = await buildTestApp()
    const issued = await t.rt.useCases.admin.createToken({ name: 'ops' })
    token = issued.token
    tokenId = issued.record.id
  })
  afterEach(async () => t.close())

  const admin = (
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${token}` },
  ): Promise<Answer<number, any>> =>
    api(t).raw({
      method,
      url: `/api/admin/v1${url}`,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })

  it('when a merchant is created, a key issued and used on POST /api/v1/invoices, then revoked, then the key fails', async () => {
    const created = await admin('POST', '/merchants', { name: 'Acme Books', default_service: 'card' })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toMatchObject({ name: 'Acme Books', default_service: 'card', status: 'active' })
    expect(created.body.api_key).toMatch(/^mk_[A-Za-z0-9_-]{43}$/)
    expect(created.headers['cache-control']).toBe('no-store')
    const merchantId: string = created.body.merchant_id

    const issued = await admin('POST', `/merchants/${merchantId}/api-keys`)
    expect(issued.status, issued.text).toBe(201)
    expect(issued.body).toMatchObject({ merchant_id: merchantId, revoked_at: null })
    const key = { apiKey: issued.body.api_key as string }
    expectStatus(await api(t).as(key).createInvoice({ order_id: 'A-1', amount: 10, currency: 'RUB' }), 201)

    const keys = await admin('GET', `/merchants/${merchantId}/api-keys`)
    expect(keys.status).toBe(200)
    expect(keys.body.data.map((k: { key_id: string }) => k.key_id)).toEqual([
      created.body.api_key_id,
      issued.body.key_id,
    ])
    expect(keys.text).not.toContain(key.apiKey)

    const revoked = await admin('POST', `/api-keys/${issued.body.key_id}/revoke`)
    expect(revoked.status, revoked.text).toBe(204)
    expectProblem(
      await api(t).as(key).createInvoice({ order_id: 'A-2', amount: 10, currency: 'RUB' }),
      401,
      'invalid_api_key',
    )
    // revoking it again: there is no active key with that id
    expectProblem(await admin('POST', `/api-keys/${issued.body.key_id}/revoke`), 404, 'not_found')
    // the merchant's first key still works
    const first = { apiKey: created.body.api_key as string }
    expectStatus(await api(t).as(first).createInvoice({ order_id: 'A-3', amount: 10, currency: 'RUB' }), 201)
  })

  it('when a merchant is disabled and enabled again, then its keys answer 403 merchant_disabled, then work', async () => {
    const m = await t.merchant()
    const listed = await admin('GET', '/merchants')
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((x: { merchant_id: string }) => x.merchant_id)).toEqual([m.id])

    const disabled = await admin('POST', `/merchants/${m.id}/disable`)
    expect(disabled.status).toBe(200)
    expect(disabled.body.status).toBe('disabled')
    expectProblem(await api(t).as(m).listInvoices(), 403, 'merchant_disabled')

    expect((await admin('POST', `/merchants/${m.id}/enable`)).body.status).toBe('active')
    expectStatus(await api(t).as(m).listInvoices(), 200)
  })

  it('when no token, a malformed header, an unknown token or a revoked one is sent, then 401 unauthenticated with WWW-Authenticate', async () => {
    const unknown = `adm_${'A'.repeat(43)}`
    for (const headers of [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${unknown}` },
      { authorization: 'Bearer mk_notanadmintoken' },
    ]) {
      const res = await admin('GET', '/merchants', undefined, headers)
      expectProblem(res, 401, 'unauthenticated')
      expect(res.headers['www-authenticate']).toBe('Bearer realm="admin"')
    }
    // a merchant's API key is not an admin credential, in either header
    const m = await t.merchant()
    expectProblem(await admin('GET', '/merchants', undefined, { 'x-api-key': m.apiKey }), 401, 'unauthenticated')

    await t.rt.useCases.admin.revokeToken(tokenId)
    expectProblem(await admin('GET', '/merchants'), 401, 'unauthenticated')
  })

  it('when a request is invalid, then 400 validation_failed, 404 not_found or 400 invalid_json', async () => {
    expectProblem(await admin('POST', '/merchants', { name: '' }), 400, 'validation_failed')
    expectProblem(await admin('POST', '/merchants', { name: 'X', extra: 1 }), 400, 'validation_failed')
    expectProblem(await admin('POST', '/merchants', { name: 'X', default_service: 'nope' }), 400, 'validation_failed')
    expectProblem(await admin('POST', '/merchants/not-a-uuid/disable'), 400, 'validation_failed')
    expectProblem(await admin('POST', `/merchants/${UNKNOWN}/disable`), 404, 'not_found')
    expectProblem(await admin('POST', `/merchants/${UNKNOWN}/api-keys`), 404, 'not_found')
    expectProblem(await admin('GET', `/merchants/${UNKNOWN}/api-keys`), 404, 'not_found')
    expectProblem(await admin('POST', `/api-keys/${UNKNOWN}/revoke`), 404, 'not_found')
    const bad = await api(t).raw({
      method: 'POST',
      url: '/api/admin/v1/merchants',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"name":',
    })
    expectProblem(bad, 400, 'invalid_json')
  })

  it('when a user is invited, then 201 with the one-time link; a bad combination, a taken address or an unknown merchant is refused', async () => {
    const m = await t.merchant()
    const invited = await admin('POST', '/users', { email: 'Owner@Acme.example', role: 'owner', merchant_id: m.id })
    expect(invited.status, invited.text).toBe(201)
    expect(invited.body).toMatchObject({ email: 'owner@acme.example', role: 'owner', merchant_id: m.id })
    expect(invited.body.url).toMatch(/^http:\/\/pay\.test\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/)
    const operator = await admin('POST', '/users', { email: 'ops@service.example', role: 'admin' })
    expect(operator.status, operator.text).toBe(201)
    expect(operator.body.merchant_id).toBeNull()

    expectProblem(await admin('POST', '/users', { email: 'x@acme.example', role: 'owner' }), 400, 'validation_failed')
    expectProblem(
      await admin('POST', '/users', { email: 'y@acme.example', role: 'admin', merchant_id: m.id }),
      400,
      'validation_failed',
    )
    expectProblem(
      await admin('POST', '/users', { email: 'owner@acme.example', role: 'viewer', merchant_id: m.id }),
      400,
      'validation_failed',
    )
    expectProblem(
      await admin('POST', '/users', { email: 'z@acme.example', role: 'viewer', merchant_id: UNKNOWN }),
      404,
      'not_found',
    )
  })

  it('when an address keeps sending wrong tokens, then 429 rate_limited, even with the right token', async () => {
    const wrong = { authorization: `Bearer adm_${'B'.repeat(43)}` }
    let res: Answer<number, any> | undefined
    for (let i = 0; i < 25; i++) {
      res = await admin('GET', '/merchants', undefined, wrong)
      if (res.status === 429) break
    }
    expectProblem(res!, 429, 'rate_limited')
    expectProblem(await admin('GET', '/merchants'), 429, 'rate_limited')
  })
})
