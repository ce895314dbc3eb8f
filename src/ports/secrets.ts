/** Generation and hashing of merchant credentials; the adapter uses a CSPRNG and SHA-256. */
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
}
