import type { Hmac } from '../domain/totp.js'

/** Generation and hashing of credentials; the adapter uses a CSPRNG, SHA-256 and HMAC. */
export interface Secrets {
  /** A new API key: `mk_` + 43 base64url characters (32 random bytes). Shown once, never stored. */
  newApiKey(): string
  /** Lowercase hex SHA-256 of an API key: what is stored and looked up. */
  hashApiKey(key: string): string
  /** Constant-time comparison of two key hashes. */
  hashesEqual(a: string, b: string): boolean
  /** A new webhook signing secret: `whsec_` + base64 of 32 random bytes. */
  newWebhookSecret(): string
  /** A new opaque credential: `prefix` + 43 base64url characters (32 random bytes); admin tokens, links, sessions. */
  newToken(prefix: string): string
  /** Lowercase hex SHA-256 of a high-entropy credential (an admin token, a link, a session id): what is stored. */
  hashToken(token: string): string
  /** A new TOTP secret: 20 random bytes (RFC 4226's recommended length) in base32. */
  newTotpSecret(): string
  /** A new one-time recovery code: 10 characters of base32 in two groups (`abcde-fghij`, 50 bits). */
  newRecoveryCode(): string
  /** HMAC-SHA-1, what TOTP authenticator apps compute (domain/totp.ts). */
  readonly hmacSha1: Hmac
}
