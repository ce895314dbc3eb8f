import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

type SendDone = (err: Error | null, payload?: unknown) => void

/**
 * Answers written together: every answer finished during one pass of the event loop over its ready sockets is
 * written at the end of that pass (a `setImmediate`), one after the other, instead of each in the middle of the
 * pass as soon as its handler is done.
 *
 * Why: writing to a TCP connection whose reader sleeps wakes that reader (the client, a proxy or a load
 * balancer), and a wake-up costs the writer a scheduler call and, under a hypervisor, an inter-processor interrupt:
 * a large share of a getInfo answer's CPU when answers leave one by one, microseconds apart (its measurement:
 * bench/history/changes.json, 'answers written together'). Written back to back, the
 * first answer wakes the reader and the others reach it while it is still awake. Nothing waits longer than the
 * rest of the pass it arrived in (the handlers of the other requests that were ready with it); with one request in
 * flight the answer leaves in the same loop iteration, as before.
 *
 * Answers finished outside such a pass — at its end (the SQLite store's group commit acknowledges its batch
 * there, sqlite/driver.ts) or in a callback of their own (a database's reply, a timer) — are written together as
 * soon as that callback's promises have settled (a `process.nextTick` queued from them runs after the whole chain),
 * not at the end of the next pass: under load a pass takes milliseconds (it handles every connection's request),
 * and every create waited one more of them (measured: bench/history/changes.json, 'answers after the pass').
 *
 * Order is kept: answers are written in the order their handlers finished, and `onResponse` (the access log,
 * metrics) still runs once the answer is written. An answer that fails to write does not hold back the others.
 */
export interface WriteBatching {
  /** How many times queued answers have been written out (tests). */
  readonly flushes: () => number
  /** A request has arrived (what the onRequest hook does): the first of a pass opens it. */
  readonly arrived: () => void
  /** Queues `write` with the framework's answers, to run when they are written (getInfo's fast path). */
  readonly later: (write: () => void) => void
}

export function registerWriteBatching(app: FastifyInstance): WriteBatching {
  // parallel arrays: one `done` and its payload per answer, no closure per request
  let dones: SendDone[] = []
  let payloads: unknown[] = []
  let scheduled = false
  let flushes = 0
  /**
   * A request has arrived in this pass over ready sockets: set by the first, cleared at the end of the pass (an
   * immediate queued by that first request, so it runs before the end-of-pass work its request started).
   */
  let passOpen = false
  const closePass = (): void => {
    passOpen = false
  }

  const flush = (): void => {
    scheduled = false
    flushes += 1
    const d = dones
    const p = payloads
    dones = []
    payloads = []
    for (let i = 0; i < d.length; i += 1) {
      try {
        ;(d[i] as SendDone)(null, p[i])
      } catch (err) {
        // Fastify answers a failed send itself; this only keeps one bad answer from stranding the rest
        app.log.error({ err }, 'writing an answer failed')
      }
    }
  }

  const arrived = (): void => {
    if (!passOpen) {
      passOpen = true
      setImmediate(closePass)
    }
  }
  const queue = (done: SendDone, payload: unknown): void => {
    dones.push(done)
    payloads.push(payload)
    if (!scheduled) {
      scheduled = true
      if (passOpen) setImmediate(flush)
      else process.nextTick(flush)
    }
  }

  app.addHook('onRequest', (_request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    arrived()
    done()
  })
  app.addHook('onSend', (_request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: SendDone) => {
    queue(done, payload)
  })
  return { flushes: () => flushes, arrived, later: (write) => queue(write, undefined) }
}
