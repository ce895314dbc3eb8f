import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { registerWriteBatching } from './write-batching.js'

/** An app whose route answers at once (no promise in between) and that records when each answer is handled and written. */
function recordingApp(opts: { batching: boolean; failEndOf?: string }): {
  app: FastifyInstance
  events: string[]
  flushes: () => number
} {
  const app = Fastify({ logger: false })
  const events: string[] = []
  const batching = opts.batching ? registerWriteBatching(app) : { flushes: () => 0 }
  app.addHook('onRequest', (request, reply, done) => {
    const id = (request.query as { id: string }).id
    const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown
    reply.raw.end = ((...args: unknown[]) => {
      if (id === opts.failEndOf) throw new Error('the socket is gone')
      events.push(`written ${id}`)
      return end(...args)
    }) as typeof reply.raw.end
    done()
  })
  app.get('/answer', (request, reply) => {
    const id = (request.query as { id: string }).id
    events.push(`handled ${id}`)
    void reply.send({ id })
  })
  // finished at the end of the pass, as the SQLite store's group commit acknowledges a batch there; `next pass`
  // marks where the end of the following pass begins
  app.get('/at-end-of-pass', async (request) => {
    const id = (request.query as { id: string }).id
    await new Promise((resolve) => setImmediate(resolve))
    setImmediate(() => events.push('next pass'))
    events.push(`handled ${id}`)
    return { id }
  })
  return { app, events, flushes: batching.flushes }
}

/**
 * Resolves once `events` holds every one of `marks`, checking once a pass of the event loop: a fixed wait can end
 * before the next pass's end on a loaded machine (a stalled loop runs its expired timers before that pass's
 * immediates).
 */
async function passesUntil(events: string[], marks: string[]): Promise<void> {
  for (let i = 0; i < 1000 && !marks.every((m) => events.includes(m)); i++)
    await new Promise((done) => setImmediate(done))
}

describe('answers written together at the end of the event loop pass', () => {
  let app: FastifyInstance | undefined
  afterEach(async () => {
    await app?.close()
    app = undefined
  })

  it('when three requests are handled in one pass, then all three are written after the last one is handled, in order', async () => {
    const r = recordingApp({ batching: true })
    app = r.app
    const answers = await Promise.all(['a', 'b', 'c'].map((id) => r.app.inject({ url: `/answer?id=${id}` })))
    expect(answers.map((a) => a.json())).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }])
    expect(r.events).toEqual(['handled a', 'handled b', 'handled c', 'written a', 'written b', 'written c'])
    expect(r.flushes()).toBe(1)
  })

  it('without it, each answer is written as soon as it is handled (what the test above tells apart)', async () => {
    const r = recordingApp({ batching: false })
    app = r.app
    await Promise.all(['a', 'b'].map((id) => r.app.inject({ url: `/answer?id=${id}` })))
    expect(r.events).toEqual(['handled a', 'written a', 'handled b', 'written b'])
  })

  it('when requests arrive in separate passes, then each pass writes its own answers without waiting for later ones', async () => {
    const r = recordingApp({ batching: true })
    app = r.app
    expect((await r.app.inject({ url: '/answer?id=a' })).json()).toEqual({ id: 'a' })
    expect((await r.app.inject({ url: '/answer?id=b' })).json()).toEqual({ id: 'b' })
    expect(r.flushes()).toBe(2)
  })

  it('when an answer is finished at the end of the pass, after that pass wrote its answers, then it is written there too, not at the end of the next pass', async () => {
    const r = recordingApp({ batching: true })
    app = r.app
    const answers = await Promise.all([
      r.app.inject({ url: '/answer?id=a' }),
      r.app.inject({ url: '/at-end-of-pass?id=b' }),
    ])
    expect(answers.map((a) => a.json())).toEqual([{ id: 'a' }, { id: 'b' }])
    await passesUntil(r.events, ['written b', 'next pass']) // the next pass's end has come
    expect(r.events.indexOf('written a')).toBeLessThan(r.events.indexOf('handled b'))
    expect(r.events.indexOf('written b')).toBeLessThan(r.events.indexOf('next pass'))
  })

  it('when the only answer of a pass is finished at its end, then it is written there, not at the end of the next pass', async () => {
    const r = recordingApp({ batching: true })
    app = r.app
    expect((await r.app.inject({ url: '/at-end-of-pass?id=b' })).json()).toEqual({ id: 'b' })
    await passesUntil(r.events, ['written b', 'next pass'])
    expect(r.events).toEqual(['handled b', 'written b', 'next pass'])
  })

  it('when writing one answer throws, then the other answers of the pass are still written', async () => {
    const r = recordingApp({ batching: true, failEndOf: 'a' })
    app = r.app
    void r.app.inject({ url: '/answer?id=a' }).catch(() => undefined)
    const b = await r.app.inject({ url: '/answer?id=b' })
    expect(b.json()).toEqual({ id: 'b' })
    expect(r.events).toContain('written b')
    expect(r.events).not.toContain('written a')
  })

  it('when a handler fails, then its error answer goes through the same batch', async () => {
    const a = Fastify({ logger: false })
    app = a
    const batching = registerWriteBatching(a)
    a.get('/fail', async () => {
      throw Object.assign(new Error('no'), { statusCode: 409 })
    })
    const answers = await Promise.all([a.inject({ url: '/fail' }), a.inject({ url: '/fail' })])
    expect(answers.map((x) => x.statusCode)).toEqual([409, 409])
    expect(batching.flushes()).toBe(1)
  })
})
