import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { EventId, InvoiceId, MerchantId } from './ids.js'
import {
  canTransition,
  FINAL_STATUSES,
  isFinal,
  isLive,
  LIVE_STATUSES,
  readStatus,
  STATUSES,
  transition,
  type Invoice,
  type Status,
  type TransitionInput,
} from './invoice.js'
import { asMinor } from './money.js'

const CREATED = new Date('2026-11-22T03:00:00.000Z')
const EXPIRES = new Date('2026-11-22T04:00:00.000Z')
const BEFORE_EXPIRY = new Date('2026-11-22T03:30:00.000Z')
const AFTER_EXPIRY = new Date('2026-11-22T05:00:00.000Z')
const EVENT_ID = '0b7c3a1e-6f2d-4c8a-9e1b-2d3f4a5b6c7d' as EventId

function invoice(status: Status, over: Partial<Invoice> = {}): Invoice {
  return {
    id: '6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b' as InvoiceId,
    merchantId: '1e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b' as MerchantId,
    orderId: 'order-1',
    amount: asMinor(10050),
    currency: 'RUB',
    status,
    service: 'card',
    comment: null,
    callbackUrl: null,
    successUrl: null,
    failUrl: null,
    payUrl: 'http://localhost:8080/pay/6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
    qrData: 'http://localhost:8080/pay/6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
    credited: null,
    fee: null,
    expiresAt: EXPIRES,
    paidAt: null,
    heldAt: null,
    createdAt: CREATED,
    updatedAt: CREATED,
    ...over,
  }
}

type Target = TransitionInput['to']
const TARGETS: readonly Target[] = ['hold', 'paid', 'failed', 'expired']

/** docs/api.md#statuses, written out independently of the implementation's table. */
const ALLOWED: Readonly<Record<Status, readonly Target[]>> = {
  pending: ['hold', 'paid', 'failed', 'expired'],
  hold: ['paid', 'failed'],
  paid: [],
  failed: [],
  expired: [],
}

const PAIRS = STATUSES.flatMap((from) => TARGETS.map((to) => [from, to, ALLOWED[from].includes(to)] as const))

describe('transition: every from → to pair (docs/api.md#statuses)', () => {
  it('covers the 20 pairs with to ∈ hold, paid, failed, expired (pending is never a target)', () => {
    expect(PAIRS).toHaveLength(20)
    expect(PAIRS.filter(([, , ok]) => ok)).toHaveLength(6)
  })

  it.each(PAIRS)('when a %s invoice is asked to become %s, then allowed = %s', (from, to, allowed) => {
    const before = invoice(from)
    // expiry happens at expired_at: ask for it then, every other transition before it
    const now = to === 'expired' ? EXPIRES : BEFORE_EXPIRY
    const r = transition(before, { to, now, eventId: EVENT_ID })
    if (!allowed) {
      expect(r).toEqual({ ok: false, code: 'invalid_transition', from })
      return
    }
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.invoice.status).toBe(to)
    expect(r.invoice.updatedAt).toEqual(now)
    expect(r.event).toEqual({
      id: EVENT_ID,
      invoiceId: before.id,
      merchantId: before.merchantId,
      type: `invoice.${to}`,
      createdAt: now,
    })
    // everything but the status bookkeeping is carried over
    const { status: _s, updatedAt: _u, paidAt: _p, heldAt: _h, credited: _c, ...rest } = r.invoice
    const { status: _s0, updatedAt: _u0, paidAt: _p0, heldAt: _h0, credited: _c0, ...restBefore } = before
    expect(rest).toEqual(restBefore)
  })

  it('when the clock reads earlier than the last change (a lagging clock, or a hold that won a race), then updatedAt moves on by 1 ms and paid_at and the event time are not before the change', () => {
    const before = invoice('hold', { updatedAt: BEFORE_EXPIRY, heldAt: BEFORE_EXPIRY })
    const lagging = new Date(BEFORE_EXPIRY.getTime() - 10_000)
    const r = transition(before, { to: 'paid', now: lagging, eventId: EVENT_ID })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.invoice.updatedAt).toEqual(new Date(BEFORE_EXPIRY.getTime() + 1))
    // never before the hold it follows: paid_at before held_at, or an invoice.paid timestamped before invoice.hold,
    // would tell the merchant the wrong order
    expect(r.invoice.paidAt).toEqual(BEFORE_EXPIRY)
    expect(r.invoice.heldAt).toEqual(BEFORE_EXPIRY)
    expect(r.event.createdAt).toEqual(BEFORE_EXPIRY)
  })

  it('when the clock reads later than the last change, then every time of the change is the clock reading', () => {
    const before = invoice('pending', { updatedAt: CREATED })
    const now = new Date(CREATED.getTime() + 5_000)
    const r = transition(before, { to: 'hold', now, eventId: EVENT_ID })
    expect(r.ok && [r.invoice.updatedAt, r.invoice.heldAt, r.event.createdAt]).toEqual([now, now, now])
  })

  it.each(STATUSES)('when canTransition is asked whether a %s invoice can become pending, then no', (from) => {
    expect(canTransition(from, 'pending')).toBe(false)
  })

  it.each(STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const)))(
    'when canTransition(%s, %s) is asked, then it follows docs/api.md#statuses',
    (from, to) => {
      expect(canTransition(from, to)).toBe(to !== 'pending' && ALLOWED[from].includes(to))
    },
  )

  it('when pending is passed as a target anyway, then the type system rejects it and the function refuses it', () => {
    const r = transition(invoice('pending'), {
      // @ts-expect-error — 'pending' is not a transition target
      to: 'pending',
      now: BEFORE_EXPIRY,
      eventId: EVENT_ID,
    })
    expect(r).toEqual({ ok: false, code: 'invalid_transition', from: 'pending' })
  })

  it('when a transition is computed, then the input invoice is not modified', () => {
    const before = Object.freeze(invoice('pending'))
    const copy = { ...before }
    const r = transition(before, { to: 'paid', now: BEFORE_EXPIRY, eventId: EVENT_ID })
    expect(r.ok).toBe(true)
    expect(before).toEqual(copy)
  })
})

describe('transition: what each target records', () => {
  it('when a pending invoice is paid, then paidAt is now and credited is the amount when no fee is given', () => {
    const r = transition(invoice('pending'), { to: 'paid', now: BEFORE_EXPIRY, eventId: EVENT_ID })
    expect(r.ok && r.invoice).toMatchObject({ status: 'paid', paidAt: BEFORE_EXPIRY, credited: 10050, heldAt: null })
  })

  it('when an invoice is paid with a credited amount, then that amount is recorded', () => {
    const r = transition(invoice('pending'), {
      to: 'paid',
      now: BEFORE_EXPIRY,
      eventId: EVENT_ID,
      credited: asMinor(9799),
    })
    expect(r.ok && r.invoice.credited).toBe(9799)
  })

  it('when a pending invoice is held, then heldAt is now and it is neither paid nor credited', () => {
    const r = transition(invoice('pending'), { to: 'hold', now: BEFORE_EXPIRY, eventId: EVENT_ID })
    expect(r.ok && r.invoice).toMatchObject({ status: 'hold', heldAt: BEFORE_EXPIRY, paidAt: null, credited: null })
    expect(r.ok && r.event.type).toBe('invoice.hold')
  })

  it('when a held invoice is captured, then paidAt is set and heldAt is kept', () => {
    const held = invoice('hold', { heldAt: CREATED })
    const r = transition(held, { to: 'paid', now: BEFORE_EXPIRY, eventId: EVENT_ID, credited: asMinor(10000) })
    expect(r.ok && r.invoice).toMatchObject({ status: 'paid', heldAt: CREATED, paidAt: BEFORE_EXPIRY, credited: 10000 })
    expect(r.ok && r.event.type).toBe('invoice.paid')
  })

  it('when a held invoice is cancelled, then it fails without paidAt or credited and keeps heldAt', () => {
    const r = transition(invoice('hold', { heldAt: CREATED }), { to: 'failed', now: AFTER_EXPIRY, eventId: EVENT_ID })
    expect(r.ok && r.invoice).toMatchObject({ status: 'failed', heldAt: CREATED, paidAt: null, credited: null })
    expect(r.ok && r.event.type).toBe('invoice.failed')
  })

  it.each(['failed', 'expired'] as const)(
    'when a pending invoice becomes %s, then paidAt, heldAt and credited stay null',
    (to) => {
      const now = to === 'expired' ? EXPIRES : BEFORE_EXPIRY
      const r = transition(invoice('pending'), { to, now, eventId: EVENT_ID })
      expect(r.ok && r.invoice).toMatchObject({
        status: to,
        paidAt: null,
        heldAt: null,
        credited: null,
        updatedAt: now,
      })
      expect(r.ok && r.event.type).toBe(`invoice.${to}`)
    },
  )
})

describe('readStatus (docs/api.md#getinfo)', () => {
  it('when a pending invoice is read before expiresAt, then it is pending', () => {
    expect(readStatus(invoice('pending'), BEFORE_EXPIRY)).toBe('pending')
    expect(readStatus(invoice('pending'), new Date(EXPIRES.getTime() - 1))).toBe('pending')
  })

  it('when a pending invoice is read at exactly expiresAt, then it reads expired', () => {
    expect(readStatus(invoice('pending'), new Date(EXPIRES.getTime()))).toBe('expired')
  })

  it('when a pending invoice is read after expiresAt, then it reads expired', () => {
    expect(readStatus(invoice('pending'), AFTER_EXPIRY)).toBe('expired')
  })

  it.each(['hold', 'paid', 'failed', 'expired'] as const)(
    'when a %s invoice is read before or after expiresAt, then its status is unchanged',
    (status) => {
      expect(readStatus(invoice(status), BEFORE_EXPIRY)).toBe(status)
      expect(readStatus(invoice(status), EXPIRES)).toBe(status)
      expect(readStatus(invoice(status), AFTER_EXPIRY)).toBe(status)
    },
  )

  it('when any status is read at any time, then only a pending invoice at or past expiry changes (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUSES), fc.integer({ min: -1e10, max: 1e10 }), (status, offset) => {
        const now = new Date(EXPIRES.getTime() + offset)
        const expected = status === 'pending' && offset >= 0 ? 'expired' : status
        expect(readStatus(invoice(status), now)).toBe(expected)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('transition of a pending invoice already past expiry', () => {
  it.each([EXPIRES, AFTER_EXPIRY])('when it is at or past expiry (%s), then it can only become expired', (now) => {
    for (const to of ['hold', 'paid', 'failed'] as const) {
      expect(transition(invoice('pending'), { to, now, eventId: EVENT_ID })).toEqual({
        ok: false,
        code: 'invalid_transition',
        from: 'expired',
      })
    }
    const r = transition(invoice('pending'), { to: 'expired', now, eventId: EVENT_ID })
    expect(r.ok && r.invoice.status).toBe('expired')
    expect(r.ok && r.event.type).toBe('invoice.expired')
  })

  it('when a held invoice is past its invoice expiry, then it can still be captured or cancelled but not expired', () => {
    expect(transition(invoice('hold'), { to: 'paid', now: AFTER_EXPIRY, eventId: EVENT_ID }).ok).toBe(true)
    expect(transition(invoice('hold'), { to: 'failed', now: AFTER_EXPIRY, eventId: EVENT_ID }).ok).toBe(true)
    expect(transition(invoice('hold'), { to: 'expired', now: AFTER_EXPIRY, eventId: EVENT_ID })).toEqual({
      ok: false,
      code: 'invalid_transition',
      from: 'hold',
    })
  })

  it('when any invoice is asked for any target at any time, then it succeeds exactly as docs/api.md#statuses applied to the read status (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...STATUSES),
        fc.constantFrom(...TARGETS),
        fc.integer({ min: -1e10, max: 1e10 }),
        (status, to, offset) => {
          const now = new Date(EXPIRES.getTime() + offset)
          const read = status === 'pending' && offset >= 0 ? 'expired' : status
          // past expiry a pending invoice can only become expired; before it, it cannot expire yet
          const allowed =
            to === 'expired'
              ? read === 'expired' && status === 'pending'
              : read !== 'expired' && ALLOWED[status].includes(to)
          const r = transition(invoice(status), { to, now, eventId: EVENT_ID })
          expect(r.ok).toBe(allowed)
          if (!r.ok) expect(r).toEqual({ ok: false, code: 'invalid_transition', from: read })
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('live and final statuses (docs/api.md#idempotency, docs/api.md#statuses)', () => {
  it('when statuses are classified, then pending, hold and paid are live and paid, failed, expired are final', () => {
    expect([...LIVE_STATUSES].sort()).toEqual(['hold', 'paid', 'pending'])
    expect([...FINAL_STATUSES].sort()).toEqual(['expired', 'failed', 'paid'])
    for (const s of STATUSES) {
      expect(isLive(s)).toBe((LIVE_STATUSES as readonly Status[]).includes(s))
      expect(isFinal(s)).toBe((FINAL_STATUSES as readonly Status[]).includes(s))
    }
  })

  it('when a status is final, then no transition leaves it', () => {
    for (const s of STATUSES) if (isFinal(s)) for (const to of STATUSES) expect(canTransition(s, to)).toBe(false)
  })
})
