/**
 * Reconciliation raced by three instances over one PostgreSQL schema (docs/providers.md#reconciliation): every
 * attempt due a check is asked about at the acquirer by one instance only, and each payment it finds applies once.
 *
 * The instances are three runtimes in this process (buildTestApp over the same schema, each with its own pool,
 * workers and HTTP app), not three processes as in test/e2e/postgres-instances.test.ts: what is raced here is the
 * database claim, which runs on separate connections either way, and in one process the instances can share one
 * fake clock and one fake Stripe, so a round of due-ness is exact (the clock moves only between rounds) and every
 * request the acquirer saw can be counted per object.
 *
 * Asked about once holds even without the claim's lock: each claimed row is moved by a compare-and-set on its
 * version, and under READ COMMITTED a second claimer's update waits for the first and then matches nothing.
 * What `FOR UPDATE SKIP LOCKED` adds is that concurrent claims neither come back short nor wait for each other:
 * the last two tests fail without it (the second without any lock, the third also with a plain FOR UPDATE).
 * Needs TEST_DATABASE_URL; without it the file skips, except in CI, where it fails.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InvoiceId } from '../../src/domain/ids.js'
import type { PaymentAttempt } from '../../src/domain/payment-attempt.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { FakeClock } from '../helpers/fake-clock.js'
import { createTestSchema, IS_CI, MISSING_IN_CI, TEST_DATABASE_URL, type TestSchema } from '../helpers/postgres.js'
import { startFakeStripe, type FakeStripe } from '../fakes/stripe/fake-stripe.js'

if (TEST_DATABASE_URL === undefined && IS_CI) {
  it('PostgreSQL in CI: TEST_DATABASE_URL is set', () => {
    throw new Error(MISSING_IN_CI)
  })
}

const INSTANCES = 3
const INVOICES = 30

describe.skipIf(TEST_DATABASE_URL === undefined)('reconciliation by three instances over one PostgreSQL schema', () => {
  // one clock for the service's three instances and the acquirer: due-ness moves only when the test says
  const clock = new FakeClock(new Date())
  let schema: TestSchema
  let fake: FakeStripe
  let merchant: TestMerchant
  const instances: TestApp[] = []

  beforeAll(async () => {
    schema = await createTestSchema()
    fake = await startFakeStripe({ now: () => clock.now() })
    const env = {
      DATABASE_URL: schema.url,
      DATABASE_POOL_SIZE: '4',
      SERVICES: 'card',
      SERVICE_PROVIDERS: 'card=stripe',
      CURRENCIES: 'USD',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
      STRIPE_API_URL: fake.apiUrl,
      RECONCILE_AFTER: '1',
      RECONCILE_MAX_INTERVAL: '1',
    }
    // all three at once: their migrations race too (an advisory lock serialises them)
    instances.push(
      ...(await Promise.all(Array.from({ length: INSTANCES }, () => buildTestApp(env, { clock, db: 'postgres' })))),
    )
    const port = await instances[0]!.listen()
    fake.setNotificationUrl(`http://127.0.0.1:${port}/providers/stripe/notifications`)
    merchant = await instances[0]!.merchant('Reconciled Shop')
  })

  afterAll(async () => {
    await Promise.all(instances.map((t) => t.close()))
    await fake?.close()
    await schema?.drop()
  })

  let orders = 0
  /** An invoice created through one instance and its buyer's Pay through another: one open Checkout Session. */
  async function invoiceWithCheckout(n: number): Promise<{ id: string; attempt: PaymentAttempt }> {
    const created = await instances[n % INSTANCES]!.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: { 'x-api-key': merchant.apiKey },
      payload: { order_id: `R-${(orders += 1)}`, amount: '10.50', currency: 'USD', service: 'card' },
    })
    expect(created.statusCode, created.body).toBe(201)
    const id = (created.json() as { order_id: string }).order_id
    const pay = await instances[(n + 1) % INSTANCES]!.app.inject({ method: 'POST', url: `/pay/${id}/checkout` })
    expect(pay.statusCode, pay.body).toBe(303)
    const [attempt] = await instances[0]!.rt.store.attempts.listByInvoice(id as InvoiceId)
    expect(attempt?.checkoutId).toMatch(/^cs_test_/)
    return { id, attempt: attempt! }
  }

  /** The GETs of an attempt's Checkout Session and PaymentIntent among the acquirer's requests from `from` on. */
  function retrievals(from: number): (attempt: PaymentAttempt) => number {
    const gets = new Map<string, number>()
    for (const r of fake.requests.slice(from)) {
      if (r.method === 'GET') gets.set(r.path, (gets.get(r.path) ?? 0) + 1)
    }
    return (a) => {
      const paymentIds = fake.payments().filter((p) => p.checkoutId === a.checkoutId)
      return (
        (gets.get(`/v1/checkout/sessions/${a.checkoutId}`) ?? 0) +
        paymentIds.reduce((sum, p) => sum + (gets.get(`/v1/payment_intents/${p.id}`) ?? 0), 0)
      )
    }
  }

  const statusOf = async (id: string) => (await instances[0]!.rt.store.invoices.findById(id as InvoiceId))?.status
  const eventsOf = async (id: string) =>
    (await instances[0]!.rt.store.events.listByInvoice(id as InvoiceId)).map((e) => e.type)
  /** Every instance's worker ticks `times` times, all at once: one round of due-ness raced by all of them. */
  const raceTicks = (times: number) =>
    Promise.all(instances.flatMap((t) => Array.from({ length: times }, () => t.sweep())))

  it('when 30 payments whose notifications were lost are reconciled by three instances at once, then each is asked about once per round and every invoice is paid once', async () => {
    const invoices = await Promise.all(Array.from({ length: INVOICES }, (_, n) => invoiceWithCheckout(n)))
    fake.dropNotifications(1000)
    try {
      // two thirds pay now, the rest only after the first round: they are asked about again in the second
      const early = invoices.slice(0, 20)
      const late = invoices.slice(20)
      for (const { attempt } of early) await fake.buyer(attempt.checkoutId!, 'pay')
      for (const { id } of invoices) expect(await statusOf(id)).toBe('pending')

      // round 1: RECONCILE_AFTER (1 s) has passed for all 30; three workers, each ticking three times at once
      clock.advance(1)
      let from = fake.requests.length
      await raceTicks(3)
      let asked = retrievals(from)
      expect(invoices.map(({ attempt }) => asked(attempt))).toEqual(invoices.map(() => 1))
      for (const { id } of early) expect(await statusOf(id)).toBe('paid')
      for (const { id } of late) expect(await statusOf(id)).toBe('pending')

      // round 2: the others pay; only they are still due, once each
      for (const { attempt } of late) await fake.buyer(attempt.checkoutId!, 'pay')
      clock.advance(1)
      from = fake.requests.length
      await raceTicks(3)
      asked = retrievals(from)
      expect(early.map(({ attempt }) => asked(attempt))).toEqual(early.map(() => 0))
      expect(late.map(({ attempt }) => asked(attempt))).toEqual(late.map(() => 1))

      // round 3: every payment is final, nothing is due any more
      clock.advance(1)
      from = fake.requests.length
      await raceTicks(2)
      expect(fake.requests.slice(from)).toEqual([])
    } finally {
      fake.dropNotifications(0)
    }
    for (const { id } of invoices) {
      expect(await statusOf(id)).toBe('paid')
      expect(await eventsOf(id)).toEqual(['invoice.paid'])
    }
    expect(fake.deliveries).toEqual([])
  })

  it('when the instances claim small batches at once, then they claim different attempts and share the work', async () => {
    const invoices = await Promise.all(Array.from({ length: INVOICES }, (_, n) => invoiceWithCheckout(n)))
    clock.advance(1)
    const from = fake.requests.length
    // nine claims of 5 at once (three per instance) over 30 due attempts: with FOR UPDATE SKIP LOCKED each claim
    // passes over the rows another holds and takes the next due ones, so together they take all 30; a claim that
    // waited for, or lost, the same rows would come back short
    const reports = await Promise.all(
      instances.flatMap((t) => Array.from({ length: 3 }, () => t.rt.useCases.sweeps.reconcile(5))),
    )
    const checked = reports.map((r) => r.checked)
    expect(
      checked.reduce((a, b) => a + b, 0),
      `claims: ${checked.join(', ')}`,
    ).toBe(INVOICES)
    expect(reports.every((r) => r.failed === 0)).toBe(true)
    const asked = retrievals(from)
    expect(invoices.map(({ attempt }) => asked(attempt))).toEqual(invoices.map(() => 1))
    for (const { id } of invoices) expect(await statusOf(id)).toBe('pending')
  })
  it('when another instance holds some due attempts, then a claim passes over them at once instead of waiting', async () => {
    const invoices = await Promise.all(Array.from({ length: 10 }, (_, n) => invoiceWithCheckout(n)))
    clock.advance(1)
    // another instance in the middle of its claim: five of these due rows locked by an open transaction
    const other = new pg.Client({ connectionString: schema.url })
    await other.connect()
    try {
      await other.query('begin')
      const { rows } = await other.query<{ id: string }>(
        'select id from payment_attempts where id = any($1) order by id limit 5 for update',
        [invoices.map(({ attempt }) => attempt.id)],
      )
      expect(rows).toHaveLength(5)
      const held = new Set(rows.map((r) => r.id))
      // the claim itself, as reconciliation makes it (without the acquirer calls that follow, so timing is the lock's)
      const next = new Date(clock.now().getTime() + 1000)
      const claim = instances[1]!.rt.store.transaction((tx) => tx.attempts.claimDue(clock.now(), 50, () => next))
      const waited = await Promise.race([
        claim.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 5000)),
      ])
      await other.query('rollback')
      const claimed = await claim
      expect(waited, 'the claim waited for the rows another transaction held').toBe(false)
      const ids = new Set(claimed.map((a) => a.id))
      expect([...held].filter((id) => ids.has(id))).toEqual([])
      // (what the earlier tests left open is due too)
      expect(claimed.length).toBeGreaterThanOrEqual(5)
      const after = await Promise.all(
        invoices.map(async ({ id }) => (await instances[0]!.rt.store.attempts.listByInvoice(id as InvoiceId))[0]!),
      )
      // the five held ones were left due for the next round; the other five were claimed
      expect(after.filter((a) => held.has(a.id)).map((a) => a.checks)).toEqual([0, 0, 0, 0, 0])
      expect(after.filter((a) => !held.has(a.id)).map((a) => a.checks)).toEqual([1, 1, 1, 1, 1])
    } finally {
      await other.end()
    }
  })
})
