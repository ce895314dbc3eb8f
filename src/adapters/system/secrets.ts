import { hash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Secrets } from '../../ports/secrets.js'

/** Credentials from the OS CSPRNG; API keys hashed with SHA-256 (high-entropy keys need no slow KDF). */
export const nodeSecrets: Secrets = {
  newApiKey: () => `mk_${randomBytes(32).toString('base64url')}`,
  // one-shot hash: no Hash object per request
  hashApiKey: (key) => hash('sha256', key, 'hex'),
  hashesEqual: (a, b) => {
    const x = Buffer.from(a, 'utf8')
    const y = Buffer.from(b, 'utf8')
    return x.length === y.length && timingSafeEqual(x, y)
  },
  newWebhookSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
  newToken: (prefix) => `${prefix}${randomBytes(32).toString('base64url')}`,
  hashToken: (token) => hash('sha256', token, 'hex'),
}
