/**
 * A merchant's webhook endpoint for tests: a real HTTP server on 127.0.0.1 (docs/architecture.md#tests: fake only what
 * leaves the process — and this does not even fake that). Every request is verified with the `standardwebhooks`
 * package, as a merchant would, against the secrets the test gives it.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** The parsed body ({type, timestamp, data}). */
  readonly json: { type: string; timestamp: string; data: Record<string, unknown> }
  /** performance.timeOrigin-based milliseconds at arrival. */
  readonly receivedAt: number
  /** The secrets (of `secrets` at arrival) whose signature verified with the standardwebhooks library. */
  readonly verifiedWith: readonly string[]
  /** What the receiver answered (a status code) or `hang` (no answer). */
  readonly answer: number | 'hang'
}

/** Decides the answer to a request: a status code, or `hang` to never answer; may wait first. `n` counts from 1. */
export type Responder = (hook: Omit<ReceivedWebhook, 'answer'>, n: number) => number | 'hang' | Promise<number | 'hang'>

export interface Receiver {
  readonly url: string
  readonly port: number
  readonly received: ReceivedWebhook[]
  /** The most requests that were open at the same time. */
  readonly maxConcurrent: number
  /** The secrets requests are verified against; a request no secret verifies is answered 401. */
  secrets: string[]
  respond: Responder
  /** Resolves once `n` requests (matching `where`, if given) have arrived; rejects after `timeoutMs`. */
  waitFor(n: number, opts?: { timeoutMs?: number; where?: (h: ReceivedWebhook) => boolean }): Promise<ReceivedWebhook[]>
  close(): Promise<void>
}

export async function startReceiver(opts: { secrets?: string[]; respond?: Responder } = {}): Promise<Receiver> {
  const received: ReceivedWebhook[] = []
  const hanging = new Set<ServerResponse>()
  const waiters = new Set<() => void>()
  let open = 0
  let maxConcurrent = 0
  const server = createServer((req, res) => {
    open += 1
    maxConcurrent = Math.max(maxConcurrent, open)
    res.on('close', () => {
      open -= 1
    })
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const verifiedWith = receiver.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>)
          return true
        } catch {
          return false
        }
      })
      let json: ReceivedWebhook['json']
      try {
        json = JSON.parse(body) as ReceivedWebhook['json']
      } catch {
        json = { type: '(not json)', timestamp: '', data: {} }
      }
      const partial = {
        headers: req.headers,
        body,
        json,
        receivedAt: performance.timeOrigin + performance.now(),
        verifiedWith,
      }
      const n = received.length + 1
      const pending = { ...partial, answer: 0 as number | 'hang' }
      received.push(pending)
      const answer = verifiedWith.length === 0 ? 401 : await receiver.respond(partial, n)
      pending.answer = answer
      for (const w of waiters) w()
      if (answer === 'hang') {
        hanging.add(res)
        res.on('close', () => hanging.delete(res))
        return
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 200 && answer < 300 ? 'ok' : 'no')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    get maxConcurrent() {
      return maxConcurrent
    },
    secrets: opts.secrets ?? [],
    respond: opts.respond ?? (() => 200),
    waitFor(n, { timeoutMs = 10_000, where = () => true } = {}) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const matching = received.filter(where)
          if (matching.length >= n) {
            waiters.delete(check)
            clearTimeout(timer)
            resolve(matching)
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`receiver: ${received.filter(where).length} of ${n} webhooks within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return receiver
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
