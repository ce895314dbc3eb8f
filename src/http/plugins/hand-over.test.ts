/**
 * A request a fast path hands to the framework after reading its body (hand-over.ts, docs/performance.md#creates-fast-path):
 * a replay the framework reads as it would the socket, which leaves the connection open, carrying what was done.
 */
import { once } from 'node:events'
import { createServer, request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { elapsedMs, handedOver, replay, type HandedOver } from './hand-over.js'

/** The first request of a real connection, its body read to the end as a fast path reads it. */
async function readRequest(body: string): Promise<{ req: IncomingMessage; raw: Buffer; close: () => void }> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const client = request({ host: '127.0.0.1', port, method: 'POST', path: '/p?q=1', headers: { 'x-a': 'b' } })
  client.on('error', () => {})
  client.end(body)
  const [req] = (await once(server, 'request')) as [IncomingMessage]
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  await once(req, 'end')
  return {
    req,
    raw: Buffer.concat(chunks),
    close: () => {
      client.destroy()
      server.close()
      server.closeAllConnections()
    },
  }
}

describe('a request handed over with its body read', () => {
  it('when the framework reads the replay to its end, then it gets the request as it came, and the connection stays open', async () => {
    const { req, raw, close } = await readRequest('{"order_id":"x"}')
    try {
      const done: HandedOver = { admission: undefined, created: undefined, arrived: performance.now() }
      const copy = replay(req, raw, done)
      expect([copy.method, copy.url, copy.headers['x-a'], copy.socket]).toEqual(['POST', '/p?q=1', 'b', req.socket])
      expect(copy.headersDistinct['x-a']).toEqual(['b'])
      const chunks: Buffer[] = []
      copy.on('data', (c: Buffer) => chunks.push(c))
      await once(copy, 'close') // read to its end, then destroyed, as every request is
      expect(Buffer.concat(chunks).toString()).toBe('{"order_id":"x"}')
      expect(req.socket.destroyed).toBe(false)
      expect(handedOver(copy)).toBe(done)
      expect(handedOver(req)).toBeUndefined()
    } finally {
      close()
    }
  })

  it('when a handed-over request is answered, then its time counts from its arrival at the fast path', async () => {
    const { req, raw, close } = await readRequest('{}')
    try {
      const copy = replay(req, raw, { admission: undefined, created: undefined, arrived: performance.now() - 50 })
      expect(elapsedMs(copy, 2)).toBeGreaterThanOrEqual(50)
      expect(elapsedMs(req, 2)).toBe(2) // the framework's own time for every other request
    } finally {
      close()
    }
  })
})
