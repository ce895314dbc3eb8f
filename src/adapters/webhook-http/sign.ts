import { createHmac } from 'node:crypto'
import type { WebhookSigner } from '../../ports/webhook-transport.js'

const PREFIX = 'whsec_'

/**
 * Standard Webhooks signatures, as its reference libraries compute them: the part of `whsec_<base64>` after
 * the prefix is base64 of the key bytes, and the decoded bytes are the HMAC-SHA256 key.
 */
export const hmacSigner: WebhookSigner = {
  signature(secrets, messageId, timestampSeconds, body) {
    const signed = `${messageId}.${timestampSeconds}.${body}`
    return secrets
      .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed, 'utf8').digest('base64')}`)
      .join(' ')
  },
}

function keyOf(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
  // never echo the secret itself, not even in an error
  if (key.length === 0) throw new Error('a webhook secret decodes to an empty key')
  return key
}
