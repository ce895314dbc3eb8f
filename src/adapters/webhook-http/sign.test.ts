import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { hmacSigner } from './sign.js'

describe('hmacSigner (Standard Webhooks)', () => {
  it("when signing the specification's test vector, then the signature is the published one", () => {
    // standard-webhooks' own test vector: the key is the base64-decoded part after whsec_
    const sig = hmacSigner.signature(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    )
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  it('when two secrets sign (a rotation), then both signatures are sent space-separated and each verifies with its secret', () => {
    const a = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`
    const b = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`
    const ts = Math.floor(Date.now() / 1000)
    const body =
      '{"type":"invoice.paid","timestamp":"2026-11-22T03:07:20.123Z","data":{"amount":100.5,"comment":"Заказ"}}'
    const header = hmacSigner.signature([b, a], 'evt-1', ts, body)
    expect(header.split(' ')).toHaveLength(2)
    const headers = { 'webhook-id': 'evt-1', 'webhook-timestamp': String(ts), 'webhook-signature': header }
    for (const secret of [a, b])
      expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'invoice.paid' })
    const other = `whsec_${Buffer.from('c'.repeat(32)).toString('base64')}`
    expect(() => new Webhook(other).verify(body, headers)).toThrow()
  })

  it('when the body, id or timestamp changes, then the signature no longer verifies', () => {
    const secret = `whsec_${Buffer.from('k'.repeat(24)).toString('base64')}`
    const ts = Math.floor(Date.now() / 1000)
    const header = hmacSigner.signature([secret], 'evt-2', ts, '{"a":1}')
    const wh = new Webhook(secret)
    expect(() =>
      wh.verify('{"a":2}', { 'webhook-id': 'evt-2', 'webhook-timestamp': String(ts), 'webhook-signature': header }),
    ).toThrow()
    expect(() =>
      wh.verify('{"a":1}', { 'webhook-id': 'evt-3', 'webhook-timestamp': String(ts), 'webhook-signature': header }),
    ).toThrow()
    expect(() =>
      wh.verify('{"a":1}', { 'webhook-id': 'evt-2', 'webhook-timestamp': String(ts + 1), 'webhook-signature': header }),
    ).toThrow()
  })
})
