import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

describe('public endpoints, request ids and documentation', () => {
  let t: TestApp
  /** A client with no key: these endpoints are public. */
  let anyone: TestClient
  beforeEach(async () => {
    t = await buildTestApp()
    anyone = api(t)
  })
  afterEach(async () => t.close())

  it('when probing liveness, then /healthz answers 200 ok', async () => {
    const res = await anyone.healthz()
    expectStatus(res, 200)
    expect(res.body).toEqual({ status: 'ok' })
  })

  it('when probing readiness, then /readyz answers 200 ready', async () => {
    const res = await anyone.readyz()
    expectStatus(res, 200)
    expect(res.body).toEqual({ status: 'ready' })
  })

  it('when the database is closed, then /readyz answers 503 unavailable', async () => {
    await t.rt.store.close()
    expectProblem(await anyone.readyz(), 503, 'unavailable')
  })

  it('when a client sends x-request-id, then it is echoed', async () => {
    const res = await anyone.healthz({ headers: { 'x-request-id': 'abc-123' } })
    expect(res.headers['x-request-id']).toBe('abc-123')
  })

  it('when a client sends no x-request-id, then one is generated', async () => {
    expect((await anyone.healthz()).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('when a client sends an x-request-id with unsafe characters, then one is generated instead', async () => {
    const unsafe = await anyone.healthz({ headers: { 'x-request-id': 'a b\tc' } })
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('when a request with an x-request-id is refused, then the error echoes it too', async () => {
    const err = await anyone.listInvoices({}, { headers: { 'x-request-id': 'err-1' } })
    expectProblem(err, 401, 'missing_api_key')
    expect(err.headers['x-request-id']).toBe('err-1')
  })

  it.each([
    ['unknown', '00000000-0000-7000-8000-000000000000'],
    ['not a UUID', 'nope'],
  ])('when the QR of an invoice id that is %s is asked for, then 404 invoice_not_found', async (_name, id) => {
    expectProblem(await anyone.qr(id), 404, 'invoice_not_found')
  })

  it('when an invoice is created, then /metrics counts it and the request by route', async () => {
    await api(t)
      .as(await t.merchant())
      .newInvoice({ order_id: 'M1', amount: 1, currency: 'RUB' })
    const text = (await anyone.metrics()).text
    expect(text).toContain('invoices_created_total{currency="RUB",service="card"} 1')
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/api\/v1\/invoices",status_code="201"\} 1/)
    expect(text).toContain('http_request_duration_seconds_bucket')
  })

  it('when /openapi.json is fetched, then it is OpenAPI 3.1 with every endpoint, its errors and the X-Api-Key scheme', async () => {
    const doc = (await anyone.openapi()).body
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
    // the operations endpoints of docs/operations.md#health too, /metrics as the Prometheus text it is
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect(doc.paths[path]?.get?.tags, path).toEqual(['operations'])
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual([
      expect.stringMatching(/^text\/plain/),
    ])
  })

  it('when /metrics is fetched, then it answers the Prometheus text format', async () => {
    const metrics = await anyone.metrics()
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/)
    expect(metrics.text).toMatch(/^# HELP /)
  })

  it('when /docs is opened, then the reference renders from local assets only', async () => {
    const page = await anyone.raw({ url: '/docs/' })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    const srcs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((x) => x[1] ?? '')
    expect(srcs.length).toBeGreaterThan(0)
    for (const s of srcs) expect(s).not.toMatch(/^(https?:)?\/\//)
    const init = await anyone.raw({ url: '/docs/static/swagger-initializer.js' })
    expect(init.status).toBe(200)
  })

  it('when an unexpected error happens, then 500 internal_error without internals, and the request id to quote', async () => {
    // a row no code path can write (an unknown currency) makes the wire mapping throw a plain Error
    const shop = api(t).as(await t.merchant())
    const good = await shop.newInvoice({ order_id: 'X1', amount: 1, currency: 'RUB' })
    const stored = await t.rt.store.invoices.findById(good as never)
    const broken = { ...stored!, id: '00000000-0000-7000-8000-0000000000aa' as never, orderId: 'X2', currency: 'ZZZ' }
    await t.rt.store.transaction((tx) => tx.invoices.insert(broken))
    const res = await shop.getInvoice(broken.id, { headers: { 'x-request-id': 'boom-1' } })
    expectProblem(res, 500, 'internal_error')
    expect(res.body).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      code: 'internal_error',
      detail: 'an internal error occurred; quote request id boom-1 to the operator',
    })
    expect(res.text).not.toContain('ZZZ')
  })
})
