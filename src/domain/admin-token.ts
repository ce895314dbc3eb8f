import type { AdminTokenId } from './ids.js'

/** An admin API token as stored: only its SHA-256 hash, never the token itself (docs/admin-api.md#tokens). */
export interface AdminTokenRecord {
  readonly id: AdminTokenId
  /** What the operator called it (`admin-token create --name`), to tell tokens apart. */
  readonly name: string
  /** Lowercase hex SHA-256 of the full token. Never logged. */
  readonly hash: string
  /** `adm_` + 6 characters, shown in listings. */
  readonly prefix: string
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

/** The token's prefix: it says what the credential is when one turns up in a log or a paste. */
export const ADMIN_TOKEN_PREFIX = 'adm_'

const TOKEN = /^adm_[A-Za-z0-9_-]{43}$/

/** docs/admin-api.md#tokens: `adm_` + 43 characters of base64url (32 random bytes). */
export function isWellFormedAdminToken(text: string): boolean {
  return TOKEN.test(text)
}
