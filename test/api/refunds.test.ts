import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sandboxProvider } from '../../src/adapters/providers/sandbox.js'
import { AppError } from '../../src/domain/errors.js'
import type { InvoiceId } from '../../src/domain/ids.js'
import type { PaymentProvider, RefundRequest } from '../../src/ports/payment-provider.js'
import { api, expectProblem, expectStatus, unchecked, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

// docs/refunds.md: refunds of paid invoices through the API, on the sandbox provider
describe('refunds (docs/refunds.md)', () => {
  let t: TestApp
  let m: TestMerchant
  let shop: TestClient
  let keys = 0
  const key = () => `key-${(keys += 1)}`
  beforeEach(async () => {
    t = await buildTestApp()
    m = await t.merchant()
    shop = api(t).as(m)
  })
  afterEach(async () => t.close())

  const paidInvoice = async (amount = '100.10'): Promise<string> => {
    const id = await shop.newInvoice({ amount, currency: 'RUB', callback_url: 'https://shop.example/hooks' })
    expectStatus(await api(t).simulate(id, { outcome: 'paid' }), 200)
    return id
  }
  const events = async (id: string) => (await t.rt.store.events.listByInvoice(id as InvoiceId)).map((e) => e.type)
  const refund = async (id: string, body: { amount?: string | number; reason?: string } = {}) => {
    const res = await shop.createRefund(id, body, key())
    expectStatus(res, 201)
    return res.body
  }

  it('when a paid invoice is refunded without an amount, then all of it is refunded at once and the invoice stays paid', async () => {
    const id = await paidInvoice()
    const r = await refund(id, { reason: 'order cancelled' })
    expect(r).toMatchObject({
      invoice_id: id,
      amount: '100.10',
      currency: 'RUB',
      status: 'succeeded',
      reason: 'order cancelled',
      failure_reason: null,
    })
    expect(Object.keys(r).sort()).toEqual(
      [
        'amount',
        'created_at',
        'currency',
        'failure_reason',
        'id',
        'invoice_id',
        'reason',
        'status',
        'updated_at',
      ].sort(),
    )
    const detail = await shop.getInvoice(id)
    expectStatus(detail, 200)
    expect(detail.body).toMatchObject({ status: 'paid', refunded_amount: '100.10' })
    // getInfo keeps its 13 fields
    const info = await shop.getInfo({ merchant_id: m.id, invoice_id: id })
    expectStatus(info, 200)
    expect(Object.keys(info.body)).toHaveLength(13)
    expect(await events(id)).toEqual(['invoice.paid', 'refund.succeeded'])
    const read = await shop.getRefund(r.id)
    expectStatus(read, 200)
    expect(read.body).toEqual(r)
  })

  it('when partial refunds add up to the amount, then each succeeds, they list oldest first, and one cent more is 409 refund_exceeds_amount', async () => {
    const id = await paidInvoice()
    const a = await refund(id, { amount: '30' })
    t.clock.advance(1)
    const b = await refund(id, { amount: 70.1 })
    expect([a.amount, b.amount]).toEqual(['30.00', '70.10'])
    const over = await shop.createRefund(id, { amount: '0.01' }, key())
    expect(expectProblem(over, 409, 'refund_exceeds_amount').detail).toMatch(/0\.00 RUB is left/)
    expectProblem(await shop.createRefund(id, {}, key()), 409, 'refund_exceeds_amount')
    const list = await shop.listRefunds(id)
    expectStatus(list, 200)
    expect(list.body.data.map((r) => r.id)).toEqual([a.id, b.id])
    const detail = await shop.getInvoice(id)
    expectStatus(detail, 200)
    expect(detail.body.refunded_amount).toBe('100.10')
  })

  it('when an invoice has no refunds, then its refunded_amount is zero in its currency', async () => {
    const id = await shop.newInvoice({ amount: '5', currency: 'RUB' })
    const detail = await shop.getInvoice(id)
    expectStatus(detail, 200)
    expect(detail.body.refunded_amount).toBe('0.00')
    const list = await shop.listRefunds(id)
    expectStatus(list, 200)
    expect(list.body.data).toEqual([])
  })

  describe('idempotency (docs/refunds.md#idempotency)', () => {
    it('when the same key comes with the same request, then the same refund answers with the same status and body', async () => {
      const id = await paidInvoice()
      const first = await shop.createRefund(id, { amount: '10.00', reason: 'r' }, 'same-key')
      const again = await shop.createRefund(id, { amount: 10, reason: 'r' }, 'same-key')
      expectStatus(first, 201)
      expectStatus(again, 201)
      expect(again.body).toEqual(first.body)
      const list = await shop.listRefunds(id)
      expectStatus(list, 200)
      expect(list.body.data).toHaveLength(1)
    })

    it('when the same key comes with another request, then 409 idempotency_key_reuse', async () => {
      const id = await paidInvoice()
      expectStatus(await shop.createRefund(id, { amount: '10.00' }, 'k'), 201)
      expectProblem(await shop.createRefund(id, { amount: '11.00' }, 'k'), 409, 'idempotency_key_reuse')
      expectProblem(await shop.createRefund(id, {}, 'k'), 409, 'idempotency_key_reuse')
      expectProblem(
        await shop.createRefund(await paidInvoice(), { amount: '10.00' }, 'k'),
        409,
        'idempotency_key_reuse',
      )
    })

    it('when another merchant uses the same key, then it is their own key', async () => {
      const other = api(t).as(await t.merchant('Other'))
      expectStatus(await shop.createRefund(await paidInvoice(), { amount: '1.00' }, 'shared'), 201)
      const theirs = await other.newInvoice({ amount: '3.00' })
      expectStatus(await api(t).simulate(theirs, { outcome: 'paid' }), 200)
      expectStatus(await other.createRefund(theirs, { amount: '2.00' }, 'shared'), 201)
    })

    it('when ten requests with one key race, then one refund is made and every answer is it', async () => {
      const id = await paidInvoice()
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => shop.createRefund(id, { amount: '1.00' }, 'racing-key')),
      )
      for (const a of answers) expectStatus(a, 201)
      expect(new Set(answers.map((a) => (a.body as { id: string }).id)).size).toBe(1)
      const list = await shop.listRefunds(id)
      expectStatus(list, 200)
      expect(list.body.data).toHaveLength(1)
    })

    it('when the key is missing or malformed, then 400 validation_failed names Idempotency-Key', async () => {
      const id = await paidInvoice()
      for (const bad of [undefined, '', 'x'.repeat(256), 'ключ']) {
        const p = expectProblem(await shop.createRefund(id, {}, bad), 400, 'validation_failed')
        expect(p.errors?.[0]?.field).toBe('Idempotency-Key')
      }
      expectStatus(await shop.createRefund(id, {}, 'x'.repeat(255)), 201)
    })
  })

  describe('errors', () => {
    it('when the invoice is not paid, then 409 invalid_transition', async () => {
      const pending = await shop.newInvoice({ amount: '5.00' })
      expectProblem(await shop.createRefund(pending, {}, key()), 409, 'invalid_transition')
      const failed = await shop.newInvoice({ amount: '5.00' })
      expectStatus(await shop.cancel(failed), 200)
      expectProblem(await shop.createRefund(failed, {}, key()), 409, 'invalid_transition')
      const held = await shop.newInvoice({ amount: '5.00' })
      expectStatus(await api(t).simulate(held, { outcome: 'hold' }), 200)
      expectProblem(await shop.createRefund(held, {}, key()), 409, 'invalid_transition')
    })

    it('when the body is bad, then 400 validation_failed names each field', async () => {
      const id = await paidInvoice()
      const cases: [unknown, string][] = [
        [{ amount: '1.001' }, 'amount'],
        [{ amount: '-1' }, 'amount'],
        [{ amount: 0 }, 'amount'],
        [{ amount: '1e2' }, 'amount'],
        [{ amount: true }, 'amount'],
        [{ reason: 'x'.repeat(501) }, 'reason'],
        [{ reason: 5 }, 'reason'],
        [{ amount: '1.00', reson: 'typo' }, 'reson'],
      ]
      for (const [body, field] of cases) {
        const p = expectProblem(
          await shop.createRefund(id, unchecked(body as Record<string, unknown>), key()),
          400,
          'validation_failed',
        )
        expect(
          p.errors?.map((e) => e.field),
          JSON.stringify(body),
        ).toContain(field)
      }
      const notJson = await shop.raw({
        method: 'POST',
        url: `/api/v1/invoices/${id}/refunds`,
        payload: '{"amount":',
        headers: { 'content-type': 'application/json', 'idempotency-key': key() },
      })
      expectProblem(notJson, 400, 'invalid_json')
      expectProblem(await shop.createRefund('not-a-uuid', {}, key()), 400, 'validation_failed')
      expectProblem(await shop.getRefund('not-a-uuid'), 400, 'validation_failed')
    })

    it("when another merchant's invoice or refund is named, then 404 as for a missing one", async () => {
      const id = await paidInvoice()
      const r = await refund(id, { amount: '1.00' })
      const other = api(t).as(await t.merchant('Other'))
      expectProblem(await other.createRefund(id, {}, key()), 404, 'invoice_not_found')
      expectProblem(await other.listRefunds(id), 404, 'invoice_not_found')
      expectProblem(await other.getRefund(r.id), 404, 'not_found')
      expectProblem(await shop.getRefund('00000000-0000-7000-8000-000000000000'), 404, 'not_found')
      expectProblem(await api(t).createRefund(id, {}, key()), 401, 'missing_api_key')
    })
  })

  describe('the sandbox test control (docs/refunds.md#sandbox)', () => {
    it('when armed, then the next refund fails with its reason and event, does not count, and the one after succeeds', async () => {
      const id = await paidInvoice()
      const armed = await shop.failNextSandboxRefund(id)
      expectStatus(armed, 200)
      expect(armed.body).toEqual({ invoice_id: id, fail_next_refund: true })
      const failed = await refund(id)
      expect(failed).toMatchObject({ status: 'failed', amount: '100.10' })
      expect(failed.failure_reason).toMatch(/sandbox/)
      const ok = await refund(id)
      expect(ok).toMatchObject({ status: 'succeeded', amount: '100.10' })
      expect(await events(id)).toEqual(['invoice.paid', 'refund.failed', 'refund.succeeded'])
    })

    it("when it names another merchant's invoice, then 404", async () => {
      const id = await paidInvoice()
      const other = api(t).as(await t.merchant('Other'))
      expectProblem(await other.failNextSandboxRefund(id), 404, 'invoice_not_found')
    })

    it('when SANDBOX is off, then the control is absent', async () => {
      const off = await buildTestApp({ SANDBOX: 'false' })
      try {
        const who = await off.merchant()
        const res = await api(off).as(who).failNextSandboxRefund('00000000-0000-7000-8000-000000000000')
        expect(res.status).toBe(404)
      } finally {
        await off.close()
      }
    })
  })
})

describe('refunds with an acquirer that refuses or is down (docs/refunds.md#outcomes)', () => {
  let t: TestApp
  let shop: TestClient
  let answer: (r: RefundRequest) => Promise<{ refundId: string; state: 'pending' | 'succeeded' | 'failed' }>
  const calls: RefundRequest[] = []
  const provider: PaymentProvider = {
    ...sandboxProvider,
    refund: (r) => {
      calls.push(r)
      return answer(r)
    },
    fetchRefund: async (id) => ({ refundId: id, state: 'succeeded' }),
  }
  beforeEach(async () => {
    calls.length = 0
    t = await buildTestApp({ RECONCILE_AFTER: '60' }, { provider })
    shop = api(t).as(await t.merchant())
  })
  afterEach(async () => t.close())

  const paidInvoice = async (): Promise<string> => {
    const id = await shop.newInvoice({ amount: '50.00' })
    expectStatus(await api(t).simulate(id, { outcome: 'paid' }), 200)
    return id
  }

  it('when the acquirer refuses, then the refund is failed with its words and frees its amount', async () => {
    answer = () => Promise.reject(new AppError('provider_error', 'the acquirer refused: charge disputed'))
    const id = await paidInvoice()
    const res = await shop.createRefund(id, {}, 'k1')
    expectStatus(res, 201)
    expect(res.body).toMatchObject({ status: 'failed', failure_reason: 'the acquirer refused: charge disputed' })
    answer = async (r) => ({ refundId: `re_${r.idempotencyKey}`, state: 'succeeded' })
    const again = await shop.createRefund(id, {}, 'k2')
    expectStatus(again, 201)
    expect(again.body).toMatchObject({ status: 'succeeded', amount: '50.00' })
  })

  it('when the acquirer is down, then the refund stays pending and counts, and reconciliation completes it with the same acquirer key', async () => {
    answer = () => Promise.reject(new AppError('provider_unavailable', 'timed out'))
    const id = await paidInvoice()
    const res = await shop.createRefund(id, { amount: '20.00' }, 'k1')
    expectStatus(res, 201)
    expect(res.body.status).toBe('pending')
    // the pending refund still counts: 30.00 is what is left
    expectProblem(await shop.createRefund(id, { amount: '30.01' }, 'k2'), 409, 'refund_exceeds_amount')
    // not due yet: nothing asked
    await t.sweep()
    expect(calls).toHaveLength(1)
    answer = async (r) => ({ refundId: `re_${r.idempotencyKey}`, state: 'succeeded' })
    t.clock.advance(60)
    await t.sweep()
    expect(calls).toHaveLength(2)
    expect(calls[1]?.idempotencyKey).toBe(calls[0]?.idempotencyKey)
    const read = await shop.getRefund(res.body.id)
    expectStatus(read, 200)
    expect(read.body.status).toBe('succeeded')
    expect((await t.rt.store.events.listByInvoice(id as InvoiceId)).map((e) => e.type)).toEqual([
      'invoice.paid',
      'refund.succeeded',
    ])
    // the same key again: the same refund, as it is now
    const replay = await shop.createRefund(id, { amount: '20.00' }, 'k1')
    expectStatus(replay, 201)
    expect(replay.body).toEqual(read.body)
  })

  it('when the acquirer says pending, then reconciliation fetches the refund by its id until it is final', async () => {
    answer = async (r) => ({ refundId: `re_${r.idempotencyKey}`, state: 'pending' })
    const id = await paidInvoice()
    const res = await shop.createRefund(id, {}, 'k1')
    expectStatus(res, 201)
    expect(res.body.status).toBe('pending')
    t.clock.advance(60)
    await t.sweep()
    expect(calls).toHaveLength(1) // fetched, not requested again
    const read = await shop.getRefund(res.body.id)
    expectStatus(read, 200)
    expect(read.body.status).toBe('succeeded')
  })

  it('when the provider cannot refund, then 409 refund_unsupported and nothing is reserved', async () => {
    await t.close()
    t = await buildTestApp({}, { provider: { ...provider, capabilities: { ...provider.capabilities, refund: false } } })
    shop = api(t).as(await t.merchant())
    const id = await paidInvoice()
    expectProblem(await shop.createRefund(id, {}, 'k1'), 409, 'refund_unsupported')
    const list = await shop.listRefunds(id)
    expectStatus(list, 200)
    expect(list.body.data).toEqual([])
  })
})
