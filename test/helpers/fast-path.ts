/**
 * Over real sockets, for the fast paths' tests (docs/performance.md#the-fast-paths): the app listening with its
 * access log kept, and one request over its own connection that tells whether the framework handled it.
 *
 * Whether the framework handled a request is seen on Fastify's own diagnostics channel
 * (`tracing:fastify.request.handler:start`, published for every request that reaches a route handler).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { request } from 'node:http'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterEach } from 'vitest'
import { buildTestApp, type TestApp } from './build-test-app.js'

export const HANDLER_START = 'tracing:fastify.request.handler:start'
/** Headers that differ between any two answers, whoever writes them. */
const PER_ANSWER = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset'])

export interface SocketAnswer {
  readonly status: number
  /** Header names and values in the order they were written. */
  readonly headers: [string, string][]
  readonly body: string
  /** How many requests reached a route handler of the framework while this one was answered. */
  readonly framework: number
}

/** The app listening (closed by the caller), with its access log kept as parsed lines. */
export async function listening(env: Record<string, string> = {}) {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  const t: TestApp = await buildTestApp({ LOG_LEVEL: 'info', ...env }, { logger: pino({ level: 'info' }, sink) })
  const port = await t.listen()
  const m = await t.merchant('Fast Shop')
  return { t, port, m, lines }
}

/** `listening` for a test file (called at its top level): each app is closed after its test. */
export function listeningClosedAfterEach(): typeof listening {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })
  return async (env) => {
    const app = await listening(env)
    t = app.t
    return app
  }
}

/** How many requests reached a route handler of the framework while `run` ran, and what it gave. */
export async function frameworkHandlersDuring<T>(run: () => Promise<T>): Promise<{ value: T; framework: number }> {
  let framework = 0
  const seen = () => {
    framework += 1
  }
  subscribe(HANDLER_START, seen)
  try {
    const value = await run()
    return { value, framework }
  } finally {
    unsubscribe(HANDLER_START, seen)
  }
}

/** One request over its own connection; counts the framework's route handlers run meanwhile. */
export async function overSocket(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string | Buffer,
): Promise<SocketAnswer> {
  const { value, framework } = await frameworkHandlersDuring(
    () =>
      new Promise<Omit<SocketAnswer, 'framework'>>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => {
            const pairs: [string, string][] = []
            for (let i = 0; i < res.rawHeaders.length; i += 2)
              pairs.push([(res.rawHeaders[i] as string).toLowerCase(), res.rawHeaders[i + 1] as string])
            resolve({ status: res.statusCode ?? 0, headers: pairs, body: Buffer.concat(chunks).toString() })
          })
        })
        req.on('error', reject)
        req.end(body)
      }),
  )
  return { ...value, framework }
}

/** The headers two answers to the same request share, whoever writes them. */
export const sameHeaders = (a: SocketAnswer) => a.headers.filter(([name]) => !PER_ANSWER.has(name))
export const header = (a: SocketAnswer, name: string) => a.headers.find(([n]) => n === name)?.[1]
/** A problem document without what differs per answer. */
export const comparableProblem = (body: string) => {
  const { instance: _i, request_id: _r, ...problem } = JSON.parse(body) as Record<string, unknown>
  return problem
}
