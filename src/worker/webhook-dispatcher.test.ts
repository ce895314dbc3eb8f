import { describe, expect, it } from 'vitest'
import type { CycleInput, SendOutcome } from '../app/dispatch-webhooks.js'
import type { ClaimedDelivery } from '../domain/delivery.js'
import { startWebhookDispatcher, type DispatcherLog } from './webhook-dispatcher.js'

const quiet: DispatcherLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }
const claimOf = (n: number): ClaimedDelivery =>
  ({ id: `d${n}`, eventId: `e${n}`, invoiceId: `i${n}`, merchantId: 'm', url: 'https://shop.test/h', type: 'invoice.paid', attemptCount: 0, leaseUntil: new Date(0), payload: '{}' }) as ClaimedDelivery
const tick = () => new Promise((r) => setTimeout(r, 5))

/** A queue of due deliveries behind the cycle port, and a send that finishes when the test says so. */
function harness(due: number, concurrency: number) {
  let next = 0
  const cycles: CycleInput[] = []
  const pending = new Map<string, (o: SendOutcome) => void>()
  let maxInFlight = 0
  const d = startWebhookDispatcher({
    async cycle(input) {
      cycles.push(input)
      const claimed: ClaimedDelivery[] = []
      while (claimed.length < input.claimLimit && next < due) claimed.push(claimOf(next++))
      return { recorded: input.finished.map((f) => ({ ...f, settled: true })), claimed }
    },
    send(claim, signal) {
      return new Promise((resolve) => {
        pending.set(claim.id, resolve)
        maxInFlight = Math.max(maxInFlight, pending.size)
        signal.addEventListener('abort', () => {
          pending.delete(claim.id)
          resolve({ kind: 'aborted', claim })
        })
      })
    },
    subscribe: () => () => undefined,
    now: () => new Date(),
    concurrency,
    pollMs: 60_000,
    log: quiet,
  })
  const finish = (id: string) => {
    const resolve = pending.get(id)
    pending.delete(id)
    resolve?.({
      kind: 'finished',
      finished: { claim: claimOf(Number(id.slice(1))), attempt: { id: `a${id}`, at: new Date(), statusCode: 200, latencyMs: 1, error: null }, result: 'success', step: { status: 'succeeded', nextAttemptAt: null } },
    })
  }
  return { d, cycles, pending, finish, maxInFlight: () => maxInFlight }
}

describe('the webhook dispatcher loop', () => {
  it('when more is due than the concurrency, then at most that many are in flight, and the cycle that records ended attempts refills their slots', async () => {
    const h = harness(10, 4)
    await tick()
    expect(h.pending.size).toBe(4)
    h.finish('d0')
    h.finish('d1')
    await tick()
    expect(h.pending.size).toBe(4)
    expect(h.maxInFlight()).toBe(4)
    const refills = h.cycles.filter((c) => c.finished.length > 0)
    expect(refills.flatMap((c) => c.finished.map((f) => f.claim.id))).toEqual(['d0', 'd1'])
    // each cycle that records ended attempts also claims for the slots they freed
    for (const c of refills) expect(c.claimLimit).toBeGreaterThanOrEqual(c.finished.length)
    for (const id of [...h.pending.keys()]) h.finish(id)
    await h.d.stop(1000)
  })

  it('when stopped during attempts, then they get the grace, are aborted after it, and their claims are given back', async () => {
    const h = harness(3, 8)
    await tick()
    expect(h.pending.size).toBe(3)
    setTimeout(() => h.finish('d0'), 10) // ends within the grace
    const started = Date.now()
    await h.d.stop(50)
    expect(Date.now() - started).toBeGreaterThanOrEqual(45)
    const last = h.cycles.at(-1)!
    const finished = h.cycles.flatMap((c) => c.finished.map((f) => f.claim.id))
    const released = h.cycles.flatMap((c) => c.released.map((r) => r.id))
    expect(finished).toEqual(['d0'])
    expect(released.sort()).toEqual(['d1', 'd2'])
    expect(last.claimLimit).toBe(0) // nothing new is claimed once stopping
  })
})
