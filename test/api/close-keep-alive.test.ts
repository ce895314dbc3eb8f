/**
 * Closing the app (SIGTERM, docs/operations.md#shutdown) while a request is on its way over a keep-alive connection:
 * the request is answered, and the close ends then, not when the idle connection's keep-alive timeout runs out.
 */
import { request, Agent } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { sleep } from '../helpers/webhook-receiver.js'

let t: TestApp | undefined
afterEach(async () => {
  await t?.close()
})

it('when a request is in flight on a keep-alive connection as the app closes, then it is answered and the close ends within seconds, not at the keep-alive timeout', async () => {
  t = await buildTestApp({}, { realClock: true })
  const merchant = await t.merchant('Closing Shop')
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = t.app.server.address() as AddressInfo
  const agent = new Agent({ keepAlive: true })
  const body = JSON.stringify({ order_id: 'K-1', amount: '10.00', currency: 'RUB' })
  const answered = new Promise<number>((resolve, reject) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/api/v1/invoices',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': merchant.apiKey },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.write(body.slice(0, 10))
    void sleep(200).then(() => req.end(body.slice(10)))
  })
  await sleep(100)
  const started = performance.now()
  const closed = t.app.close()
  expect(await answered).toBe(201)
  await closed
  expect(performance.now() - started).toBeLessThan(5000)
  agent.destroy()
})
