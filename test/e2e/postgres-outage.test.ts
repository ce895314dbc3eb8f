/**
 * The app over PostgreSQL when the database goes away and comes back: /readyz follows the database, requests
 * answer 503 unavailable meanwhile, and nothing needs a restart afterwards. The database is reached through a
 * local TCP forwarder, so "the server is gone" is a port nobody listens on.
 * Needs TEST_DATABASE_URL; without it the file skips, except in CI, where it fails.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createTestSchema, IS_CI, MISSING_IN_CI, TEST_DATABASE_URL, type TestSchema } from '../helpers/postgres.js'
import { startProxy, type TcpProxy } from '../helpers/tcp-proxy.js'

if (TEST_DATABASE_URL === undefined && IS_CI) {
  it('PostgreSQL in CI: TEST_DATABASE_URL is set', () => {
    throw new Error(MISSING_IN_CI)
  })
}

describe.skipIf(TEST_DATABASE_URL === undefined)('PostgreSQL outage', () => {
  let schema: TestSchema
  let proxy: TcpProxy
  let t: TestApp
  beforeEach(async () => {
    schema = await createTestSchema()
    proxy = await startProxy(schema.url)
    t = await buildTestApp({ DATABASE_URL: proxy.url, DATABASE_POOL_SIZE: '3' }, { db: 'postgres' })
  })
  afterEach(async () => {
    await t?.close()
    await proxy?.stop()
    await schema?.drop()
  })

  it('when the database stops answering, then /readyz and requests answer 503 unavailable; when it is back, both work again', async () => {
    const shop = api(t).as(await t.merchant())
    const create = (orderId: string) => shop.createInvoice({ order_id: orderId, amount: '10.00', currency: 'RUB' })
    expectStatus(await api(t).readyz(), 200)
    expectStatus(await create('before'), 201)

    await proxy.stop() // pooled connections cut, the port closed
    expectProblem(await api(t).readyz(), 503, 'unavailable')
    expectProblem(await create('during'), 503, 'unavailable')
    expectStatus(await api(t).healthz(), 200) // liveness does not follow the database

    await proxy.start()
    expectStatus(await api(t).readyz(), 200)
    expectStatus(await create('after'), 201)
    expectStatus(await create('before'), 200) // the invoice made before the outage is still there
  })
})
