/**
 * verifyWebhook against the service's own signer (src/adapters/webhook-http/sign.ts): what the service signs, the
 * client verifies; anything else is refused.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { verifyWebhook, WebhookSecretError, WebhookVerificationError } from '@invoice-service/client'
import { hmacSigner } from '../../src/adapters/webhook-http/sign.js'

const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`
const now = (): number => Math.floor(Date.now() / 1000)
const BODY = JSON.stringify({
  type: 'invoice.paid',
  timestamp: '2026-11-22T03:09:41.507Z',
  data: { id: '0193a1c2-7d4e-7c3a-9f10-5b2e8c4d1a01', order_id: 'Заказ-1001', amount: 100.5, status: 'paid' },
})

function signed(secrets: string[], body = BODY, at = now(), id = 'evt-1'): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': hmacSigner.signature(secrets, id, at, body),
  }
}

describe('verifyWebhook', () => {
  it('when the service signed the body, then it returns the parsed event (string, bytes, Node and Fetch headers alike)', () => {
    const secret = newSecret()
    const headers = signed([secret])
    const event = verifyWebhook(BODY, headers, secret)
    expect(event).toEqual(JSON.parse(BODY))
    expect(verifyWebhook(new TextEncoder().encode(BODY), headers, secret)).toEqual(event)
    expect(verifyWebhook(Buffer.from(BODY), new Headers(headers), secret)).toEqual(event)
    // `await request.arrayBuffer()` in a Fetch-style handler, and a view into a larger buffer
    expect(verifyWebhook(new TextEncoder().encode(BODY).buffer, headers, secret)).toEqual(event)
    const padded = Buffer.from(`xx${BODY}yy`)
    expect(
      verifyWebhook(new DataView(padded.buffer, padded.byteOffset + 2, padded.length - 4), headers, secret),
    ).toEqual(event)
    // Node's IncomingHttpHeaders: lower-case names, with unrelated multi-value headers beside them
    expect(
      verifyWebhook(BODY, { ...headers, 'x-forwarded-for': ['10.0.0.1', '10.0.0.2'], host: 'shop.example' }, secret),
    ).toEqual(event)
    expect(
      verifyWebhook(
        BODY,
        {
          'Webhook-Id': headers['webhook-id'],
          'Webhook-Timestamp': headers['webhook-timestamp'],
          'Webhook-Signature': headers['webhook-signature'],
        },
        secret,
      ),
    ).toEqual(event)
  })

  it('when the secret is being rotated, then the two signatures sent each verify with their own secret', () => {
    const [oldSecret, newOne] = [newSecret(), newSecret()]
    const headers = signed([newOne, oldSecret])
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2)
    expect(verifyWebhook(BODY, headers, oldSecret)).toMatchObject({ type: 'invoice.paid' })
    expect(verifyWebhook(BODY, headers, newOne)).toMatchObject({ type: 'invoice.paid' })
    // the receiver's own rollout: it may hold both too
    expect(verifyWebhook(BODY, signed([oldSecret]), [newOne, oldSecret])).toMatchObject({ type: 'invoice.paid' })
  })

  it('when the body, the id, the timestamp or the secret differ, then WebhookVerificationError', () => {
    const secret = newSecret()
    const headers = signed([secret])
    const refused =
      (body: string, h: Record<string, string>, s: string | string[] = secret) =>
      () =>
        verifyWebhook(body, h, s)
    expect(refused(BODY.replace('100.5', '1005'), headers)).toThrow(WebhookVerificationError)
    expect(refused(JSON.stringify(JSON.parse(BODY), null, 1), headers)).toThrow(WebhookVerificationError) // re-serialized
    expect(refused(BODY, { ...headers, 'webhook-id': 'evt-2' })).toThrow(WebhookVerificationError)
    expect(refused(BODY, { ...headers, 'webhook-timestamp': String(now() + 1) })).toThrow(WebhookVerificationError)
    expect(refused(BODY, headers, newSecret())).toThrow(WebhookVerificationError)
  })

  it('when the secret is undefined, empty or not a string (an unset environment variable), then WebhookSecretError, not a TypeError', () => {
    const secret = newSecret()
    const headers = signed([secret])
    const unset = process.env['WEBHOOK_SECRET_THAT_IS_NOT_SET'] as string
    for (const bad of [unset, '', '  ', null, 42, [], [secret, undefined], [''], {}] as unknown as string[]) {
      const call = (): unknown => verifyWebhook(BODY, headers, bad)
      expect(call).toThrow(WebhookSecretError)
      expect(call).toThrow(/no webhook secret given/)
      expect(call).not.toThrow(WebhookVerificationError) // a configuration error, not a forged request
    }
    expect(() => verifyWebhook(BODY, headers, unset)).toThrow(/got undefined/)
    // checked before the request: an unconfigured receiver is told so even for a request without signature headers
    expect(() => verifyWebhook(BODY, {}, unset)).toThrow(WebhookSecretError)
    // and the message never contains a secret
    try {
      verifyWebhook(BODY, headers, [secret, ''])
    } catch (err) {
      expect(String(err)).not.toContain(secret)
    }
  })

  it('when the timestamp is more than five minutes off, then it is refused as a replay', () => {
    const secret = newSecret()
    expect(() => verifyWebhook(BODY, signed([secret], BODY, now() - 301), secret)).toThrow(/too old/)
    expect(() => verifyWebhook(BODY, signed([secret], BODY, now() + 301), secret)).toThrow(/too new/)
    expect(verifyWebhook(BODY, signed([secret], BODY, now() - 240), secret)).toMatchObject({ type: 'invoice.paid' })
  })

  it('when a header is missing, then the error names it', () => {
    const secret = newSecret()
    const { 'webhook-signature': _signature, ...rest } = signed([secret])
    expect(() => verifyWebhook(BODY, rest, secret)).toThrow(/missing webhook-signature header/)
  })

  it('when the body was already parsed (express.json() in plain JavaScript), then WebhookVerificationError, not a TypeError', () => {
    const secret = newSecret()
    const parsed = JSON.parse(BODY) as unknown as string
    expect(() => verifyWebhook(parsed, signed([secret]), secret)).toThrow(WebhookVerificationError)
    expect(() => verifyWebhook(parsed, signed([secret]), secret)).toThrow(/raw request body/)
  })
})
