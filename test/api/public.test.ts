import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, json, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

describe('public endpoints, request ids and documentation', () => {
  let t: TestApp
  let m: TestMerchant
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
  })
  afterEach(async () => t.close())

  it('when probing health, then /healthz and /readyz answer 200', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' })
    expect((await t.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' })
  })

  it('when the database is closed, then /readyz answers 503 unavailable', async () => {
    await t.rt.store.close()
    const res = await t.app.inject({ url: '/readyz' })
    expect(res.statusCode).toBe(503)
    expect(res.json().code).toBe('unavailable')
  })

  it('when a client sends x-request-id, then it is echoed; otherwise one is generated', async () => {
    expect(
      (await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id'],
    ).toBe('abc-123')
    expect((await t.app.inject({ url: '/healthz' })).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const unsafe = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'a b\tc' } })
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const err = await t.app.inject({ url: '/api/v1/invoices', headers: { 'x-request-id': 'err-1' } })
    expect(err.statusCode).toBe(401)
    expect(err.headers['x-request-id']).toBe('err-1')
  })

  it('when the QR of an unknown invoice is asked for, then 404 invoice_not_found', async () => {
    for (const url of ['/qr/00000000-0000-7000-8000-000000000000.png', '/qr/nope.png']) {
      const res = await t.app.inject({ url })
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('invoice_not_found')
    }
  })

  it('when an invoice is created, then /metrics counts it and the request by route', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      ...json({ order_id: 'M1', amount: 1, currency: 'RUB' }),
      headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
    })
    const text = (await t.app.inject({ url: '/metrics' })).body
    expect(text).toContain('invoices_created_total{currency="RUB",service="card"} 1')
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/api\/v1\/invoices",status_code="201"\} 1/)
    expect(text).toContain('http_request_duration_seconds_bucket')
  })

  it('when /openapi.json is fetched, then it is OpenAPI 3.1 with every endpoint, its errors and the X-Api-Key scheme', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json()
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.components.securitySchemes.ApiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }),
    )
    const paths = Object.keys(doc.paths)
    for (const p of [
      '/api/v1/invoices',
      '/api/invoice/getInfo',
      '/api/v1/invoices/{invoice_id}',
      '/qr/{invoice_id}.png',
      '/healthz',
      '/readyz',
    ]) {
      expect(paths).toContain(p)
    }
    const create = doc.paths['/api/v1/invoices'].post
    expect(create.operationId).toBe('createInvoice')
    expect(create.security).toEqual([{ ApiKey: [] }])
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '403', '409', '413', '415', '429', '500', '503']),
    )
    const info = doc.paths['/api/invoice/getInfo'].get
    expect(Object.keys(info.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']))
    // the operations endpoints of API.md D too, /metrics as the Prometheus text it is
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect(doc.paths[path]?.get?.tags, path).toEqual(['operations'])
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual([
      expect.stringMatching(/^text\/plain/),
    ])
    const metrics = await t.app.inject({ url: '/metrics' })
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/)
    expect(metrics.body).toMatch(/^# HELP /)
  })

  it('when /docs is opened, then the reference renders from local assets only', async () => {
    const page = await t.app.inject({ url: '/docs/' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    const srcs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((x) => x[1] ?? '')
    expect(srcs.length).toBeGreaterThan(0)
    for (const s of srcs) expect(s).not.toMatch(/^(https?:)?\/\//)
    const init = await t.app.inject({ url: '/docs/static/swagger-initializer.js' })
    expect(init.statusCode).toBe(200)
  })

  it('when an unexpected error happens, then 500 internal_error without internals, and the request id to quote', async () => {
    // a row no code path can write (an unknown currency) makes the wire mapping throw a plain Error
    const good = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/invoices',
        ...json({ order_id: 'X1', amount: 1, currency: 'RUB' }),
        headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
      })
    ).json()
    const stored = await t.rt.store.invoices.findById(good.order_id)
    const broken = { ...stored!, id: '00000000-0000-7000-8000-0000000000aa' as never, orderId: 'X2', currency: 'ZZZ' }
    await t.rt.store.transaction((tx) => tx.invoices.insert(broken))
    const res = await t.app.inject({
      url: `/api/v1/invoices/${broken.id}`,
      headers: { 'x-api-key': m.apiKey, 'x-request-id': 'boom-1' },
    })
    expect(res.statusCode).toBe(500)
    expect(res.headers['content-type']).toMatch(/problem\+json/)
    expect(res.json()).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      code: 'internal_error',
      detail: 'an internal error occurred; quote request id boom-1 to the operator',
    })
    expect(res.body).not.toContain('ZZZ')
  })
})
