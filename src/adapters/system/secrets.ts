import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto'
import { base32Encode } from '../../domain/totp.js'
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
  newTotpSecret: () => base32Encode(randomBytes(20)),
  newRecoveryCode: () => {
    const code = base32Encode(randomBytes(7)).slice(0, 10).toLowerCase()
    return `${code.slice(0, 5)}-${code.slice(5)}`
  },
  hmacSha1: (key, message) => createHmac('sha1', key).update(message).digest(),
}
