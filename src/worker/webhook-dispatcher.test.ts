import { describe, expect, it } from 'vitest'
import type { CycleInput, SendOutcome } from '../app/dispatch-webhooks.js'
import type { ClaimedDelivery } from '../domain/delivery.js'
import { startWebhookDispatcher, wakeSlot, type DispatcherLog } from './webhook-dispatcher.js'

const quiet: DispatcherLog = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
}
const claimOf = (n: number): ClaimedDelivery =>
  ({
    id: `d${n}`,
    eventId: `e${n}`,
    invoiceId: `i${n}`,
    merchantId: 'm',
    url: 'https://shop.test/h',
    type: 'invoice.paid',
    attemptCount: 0,
    leaseUntil: new Date(0),
    payload: '{}',
  }) as ClaimedDelivery
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
      while (claimed.length < input.share.limit && next < due) claimed.push(claimOf(next++))
      return { recorded: input.finished.map((f) => ({ ...f, settled: true })), claimed, nextDueAt: null }
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
    merchantConcurrency: concurrency,
    pollMs: 60_000,
    log: quiet,
  })
  const finish = (id: string, answered = true) => {
    const resolve = pending.get(id)
    pending.delete(id)
    resolve?.({
      kind: 'finished',
      finished: answered
        ? {
            claim: claimOf(Number(id.slice(1))),
            attempt: { id: `a${id}`, at: new Date(), statusCode: 200, latencyMs: 1, error: null },
            result: 'success',
            step: { status: 'succeeded', nextAttemptAt: null },
          }
        : {
            claim: claimOf(Number(id.slice(1))),
            attempt: { id: `a${id}`, at: new Date(), statusCode: null, latencyMs: 15_000, error: 'timeout' },
            result: 'timeout',
            step: { status: 'pending', nextAttemptAt: new Date(Date.now() + 60_000) },
          },
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
    for (const c of refills) expect(c.share.limit).toBeGreaterThanOrEqual(c.finished.length)
    for (const id of [...h.pending.keys()]) h.finish(id)
    await h.d.stop(1000)
  })

  it('when deliveries are in flight, then each claim carries the free slots, the merchant share and the unproven share (a quarter), what each merchant has in flight and who answers', async () => {
    const h = harness(3, 8)
    await tick()
    expect(h.cycles[0]!.share).toEqual({
      limit: 8,
      perMerchant: 8,
      perUnproven: 2,
      inFlight: new Map(),
      answering: new Set(),
    })
    h.finish('d0')
    await tick()
    // d0 succeeded: its merchant answers
    expect(h.cycles.at(-1)!.share).toEqual({
      limit: 6,
      perMerchant: 8,
      perUnproven: 2,
      inFlight: new Map([['m', 2]]),
      answering: new Set(['m']),
    })
    h.finish('d1', false)
    await tick()
    // d1 timed out: it no longer does
    expect(h.cycles.at(-1)!.share).toEqual({
      limit: 7,
      perMerchant: 8,
      perUnproven: 2,
      inFlight: new Map([['m', 1]]),
      answering: new Set(),
    })
    for (const id of [...h.pending.keys()]) h.finish(id)
    await h.d.stop(1000)
  })

  it('when a delivery is claimed again while its earlier attempt still runs (its lease ran out), then the earlier one ending leaves the later one counted', async () => {
    const sends: { claim: ClaimedDelivery; resolve: (o: SendOutcome) => void }[] = []
    const limits: number[] = []
    let ring = (): void => undefined
    let claims = 0
    const d = startWebhookDispatcher({
      async cycle(input) {
        limits.push(input.share.limit)
        // the same delivery, claimed twice under two leases
        const claimed = claims < 2 ? [{ ...claimOf(0), leaseUntil: new Date(claims++) }] : []
        return { recorded: input.finished.map((f) => ({ ...f, settled: false })), claimed, nextDueAt: null }
      },
      send: (claim) => new Promise<SendOutcome>((resolve) => sends.push({ claim, resolve })),
      subscribe: (listener) => {
        ring = listener
        return () => undefined
      },
      now: () => new Date(),
      concurrency: 4,
      merchantConcurrency: 4,
      pollMs: 60_000,
      log: quiet,
    })
    await tick()
    ring()
    await tick()
    expect(sends).toHaveLength(2)
    expect(limits).toEqual([4, 3])
    // the first attempt ends: the second is still in flight, so 3 slots are free, not 4
    sends[0]!.resolve({ kind: 'aborted', claim: sends[0]!.claim })
    await tick()
    expect(limits.at(-1)).toBe(3)
    sends[1]!.resolve({ kind: 'aborted', claim: sends[1]!.claim })
    await d.stop(0)
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
    expect(last.share.limit).toBe(0) // nothing new is claimed once stopping
  })

  it('when attempts fail with retries due in 300 and 600 ms, then each is claimed again when it comes due, not at the next poll', async () => {
    const delays: Record<string, number> = { d0: 300, d1: 600 }
    const due = new Map<string, number>()
    const reclaimedAt = new Map<string, number>()
    let first = true
    const d = startWebhookDispatcher({
      async cycle(input) {
        const now = Date.now()
        const claimed: ClaimedDelivery[] = []
        if (first) {
          first = false
          claimed.push(claimOf(0), claimOf(1))
        }
        for (const [id, at] of due) {
          if (now < at || reclaimedAt.has(id)) continue
          reclaimedAt.set(id, now)
          claimed.push({ ...claimOf(Number(id.slice(1))), attemptCount: 1 })
        }
        return { recorded: input.finished.map((f) => ({ ...f, settled: true })), claimed, nextDueAt: null }
      },
      async send(claim): Promise<SendOutcome> {
        const at = new Date()
        if (claim.attemptCount > 0) {
          return {
            kind: 'finished',
            finished: {
              claim,
              attempt: { id: `a${claim.id}2`, at, statusCode: 200, latencyMs: 1, error: null },
              result: 'success',
              step: { status: 'succeeded', nextAttemptAt: null },
            },
          }
        }
        const nextAttemptAt = new Date(at.getTime() + delays[claim.id]!)
        due.set(claim.id, nextAttemptAt.getTime())
        return {
          kind: 'finished',
          finished: {
            claim,
            attempt: { id: `a${claim.id}`, at, statusCode: 500, latencyMs: 1, error: null },
            result: 'http_error',
            step: { status: 'pending', nextAttemptAt },
          },
        }
      },
      subscribe: () => () => undefined,
      now: () => new Date(),
      concurrency: 4,
      merchantConcurrency: 4,
      pollMs: 60_000, // the poll never comes in this test: only the retries' own timers can wake the loop
      log: quiet,
    })
    const deadline = Date.now() + 3000
    while (reclaimedAt.size < 2 && Date.now() < deadline) await tick()
    await d.stop(100)
    for (const id of ['d0', 'd1']) {
      const late = reclaimedAt.get(id)! - due.get(id)!
      expect(late, id).toBeGreaterThanOrEqual(0)
      expect(late, id).toBeLessThan(250)
    }
  })

  it("when a cycle says when the next delivery comes due (pending from before a restart, or another instance's), then a cycle runs then, not at the next poll", async () => {
    const dueAt = Date.now() + 400
    let claimedAt: number | undefined
    const d = startWebhookDispatcher({
      async cycle(input) {
        const now = Date.now()
        if (claimedAt === undefined && now >= dueAt) {
          claimedAt = now
          return { recorded: [], claimed: [claimOf(7)], nextDueAt: null }
        }
        return {
          recorded: input.finished.map((f) => ({ ...f, settled: true })),
          claimed: [],
          nextDueAt: claimedAt === undefined ? new Date(dueAt) : null,
        }
      },
      send: (claim) =>
        Promise.resolve({
          kind: 'finished',
          finished: {
            claim,
            attempt: { id: 'a7', at: new Date(), statusCode: 200, latencyMs: 1, error: null },
            result: 'success',
            step: { status: 'succeeded', nextAttemptAt: null },
          },
        }),
      subscribe: () => () => undefined,
      now: () => new Date(),
      concurrency: 4,
      merchantConcurrency: 4,
      pollMs: 60_000, // only the wake-up for nextDueAt can bring the cycle that claims it
      log: quiet,
    })
    const deadline = Date.now() + 3000
    while (claimedAt === undefined && Date.now() < deadline) await tick()
    await d.stop(100)
    expect(claimedAt).toBeDefined()
    expect(claimedAt! - dueAt).toBeGreaterThanOrEqual(0)
    expect(claimedAt! - dueAt).toBeLessThan(250)
  })

  it('when a retry is due, then its wake-up slot ends at or after it, by at most 1 % of the delay (never less than 8 ms wide)', () => {
    for (const delay of [0, 50, 1_000, 5_000, 300_000, 36_000_000]) {
      const at = 1_764_000_000_123 + delay
      const slot = wakeSlot(at, delay)
      expect(slot).toBeGreaterThanOrEqual(at)
      expect(slot - at).toBeLessThan(Math.max(8, delay / 100))
    }
    // retries due close together share a slot, so they share a timer
    expect(wakeSlot(1_764_000_005_000, 5_000)).toBe(wakeSlot(1_764_000_005_010, 5_010))
  })
})
