import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

describe('GET /api/v1/invoices and /api/v1/invoices/{id}', () => {
  let t: TestApp
  let shop: TestClient
  const ids: string[] = []
  beforeEach(async () => {
    t = await buildTestApp()
    shop = api(t).as(await t.merchant())
    ids.length = 0
    for (let i = 0; i < 7; i += 1) {
      ids.push(await shop.newInvoice({ order_id: `L-${i}`, amount: i + 1, lifetime: i === 0 ? 300 : 3600 }))
      t.clock.advance(60)
    }
  })
  afterEach(async () => t.close())

  /** The list's page for `query` (typed, or a string as written), expecting 200. */
  const list = async (query: Parameters<TestClient['listInvoices']>[0] = {}) => {
    const res = await shop.listInvoices(query)
    expectStatus(res, 200)
    return res.body
  }

  it('when listing, then newest first, and the cursor walks every page exactly once', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const body = await list({ limit: '3', ...(cursor !== null && { cursor }) })
      seen.push(...body.data.map((i) => i.id))
      cursor = body.next_cursor
      pages += 1
    } while (cursor !== null)
    expect(pages).toBe(3)
    expect(seen).toEqual([...ids].reverse())
  })

  it('when filtering by status, then the read status counts (a pending invoice past expiry is expired)', async () => {
    // L-0 had a 300 s lifetime and 7 minutes have passed
    const expired = (await list({ status: 'expired' })).data
    expect(expired.map((i) => i.id)).toEqual([ids[0]])
    expect(expired[0]?.status).toBe('expired')
    const pending = (await list({ status: 'pending' })).data
    expect(pending).toHaveLength(6)
    expect((await list({ status: 'paid' })).data).toEqual([])
  })

  it('when filtering by creation time, then from is inclusive and to exclusive', async () => {
    const from = new Date(Date.parse('2026-11-22T10:00:00.000Z') + 120_000).toISOString()
    const to = new Date(Date.parse('2026-11-22T10:00:00.000Z') + 240_000).toISOString()
    const data = (await list(`?created_from=${from}&created_to=${to}`)).data
    expect(data.map((i) => i.order_id)).toEqual(['L-3', 'L-2'])
  })

  it('when a bound has digits past the millisecond, then created_at (whole milliseconds) is compared with the exact bound', async () => {
    // L-2 was created at 10:02:00.000
    const names = async (query: string) => (await list(query)).data.map((i) => i.order_id)
    // from 10:01:59.9995 (inclusive) takes 10:02:00.000; from 10:02:00.0005 does not
    expect(await names('?created_from=2026-11-22T10:01:59.9995Z&created_to=2026-11-22T10:02:30Z')).toEqual(['L-2'])
    expect(await names('?created_from=2026-11-22T10:02:00.0005Z&created_to=2026-11-22T10:02:30Z')).toEqual([])
    // to 10:02:00.0005 (exclusive) takes 10:02:00.000; to 10:02:00.000000 does not
    expect(await names('?created_from=2026-11-22T10:01:30Z&created_to=2026-11-22T10:02:00.0005Z')).toEqual(['L-2'])
    expect(await names('?created_from=2026-11-22T10:01:30Z&created_to=2026-11-22T10:02:00.000000Z')).toEqual([])
  })

  it('when the list is read as an invoice expires, then ?status=pending shows it as pending or not at all, never expired', async () => {
    // L-6, created at 10:06:00 with 3600 s, expires at 11:06:00. The clock moves 1 ms each time it is read, and each
    // request starts a millisecond closer to the expiry: in one of them the filter reads 11:05:59.999.
    const read = t.clock.now.bind(t.clock)
    t.clock.now = () => {
      const at = read()
      t.clock.set(new Date(at.getTime() + 1))
      return at
    }
    let listedPending = 0
    for (let before = 20; before >= 1; before -= 1) {
      t.clock.set(new Date(Date.parse('2026-11-22T11:06:00.000Z') - before))
      const data = (await list({ status: 'pending' })).data
      for (const item of data) expect(item.status).toBe('pending')
      if (data.some((i) => i.order_id === 'L-6')) listedPending += 1
    }
    expect(listedPending).toBeGreaterThan(0)
  })

  it('when every parameter of the template is given empty (?status=&created_from=&created_to=&limit=&cursor=), then each is taken as not given', async () => {
    const res = await list('?status=&created_from=&created_to=&limit=&cursor=')
    expect(res.data.map((i) => i.id)).toEqual([...ids].reverse())
  })

  it('when some parameters are given empty, then a value that is there still counts', async () => {
    expect((await list('?status=expired&limit=')).data.map((i) => i.id)).toEqual([ids[0]])
  })

  it('when some parameters are given empty, then a value that is there is still checked', async () => {
    const p = expectProblem(await shop.listInvoices('?status=done&limit='), 400, 'validation_failed')
    expect(p.errors).toMatchObject([{ field: 'status' }])
  })

  it.each([
    ['?status=done', 'status'],
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=abc', 'limit'],
    ['?created_from=yesterday', 'created_from'],
    ['?cursor=%%%', 'cursor'],
    ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
  ])('when the query is %s, then 400 validation_failed naming %s', async (query, field) => {
    const p = expectProblem(await shop.listInvoices(query), 400, 'validation_failed')
    expect(p.errors?.map((e) => e.field)).toContain(field)
  })

  it('when limit is not a whole number from 1 to 200, then one message says so, whatever is wrong with it', async () => {
    for (const bad of ['0', '201', 'abc', '-1', '1.5', '1e2', '+5', '%205', '0000', '00201']) {
      const p = expectProblem(await shop.listInvoices(`?limit=${bad}`), 400, 'validation_failed')
      expect(p.errors, bad).toEqual([{ field: 'limit', message: 'must be a whole number from 1 to 200' }])
    }
  })

  it('when limit has leading zeros, then it is the number they pad', async () => {
    for (const [good, n] of [
      ['01', 1],
      ['0003', 3],
      ['00001', 1],
      ['200', 7],
    ] as const) {
      expect((await list(`?limit=${good}`)).data, good).toHaveLength(n)
    }
  })

  it('when reading one invoice by id, then it has the getInfo shape', async () => {
    const res = await shop.getInvoice(ids[3]!)
    expectStatus(res, 200)
    expect(res.body).toMatchObject({ id: ids[3], order_id: 'L-3', amount: 4 })
  })

  it('when reading one invoice by an id that is not a UUID, then 400 validation_failed', async () => {
    expectProblem(await shop.getInvoice('not-a-uuid'), 400, 'validation_failed')
  })

  it('when reading one invoice that does not exist, then 404 invoice_not_found', async () => {
    expectProblem(await shop.getInvoice('00000000-0000-7000-8000-000000000000'), 404, 'invoice_not_found')
  })
})
