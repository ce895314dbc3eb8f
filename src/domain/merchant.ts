import type { ApiKeyId, MerchantId } from './ids.js'

export type MerchantStatus = 'active' | 'disabled'

export interface Merchant {
  readonly id: MerchantId
  readonly name: string
  readonly defaultService: string
  readonly status: MerchantStatus
  readonly createdAt: Date
}

/** An API key as stored: only its SHA-256 hash, never the key itself (docs/api.md#authentication). */
export interface ApiKeyRecord {
  readonly id: ApiKeyId
  readonly merchantId: MerchantId
  /** Lowercase hex SHA-256 of the full key. Never logged. */
  readonly hash: string
  /** The first characters of the key (`mk_` + 6), shown in listings so an operator can tell keys apart. */
  readonly prefix: string
  /** What the merchant calls it (docs/dashboard.md#api-keys); null for a key issued without one. */
  readonly name: string | null
  readonly createdAt: Date
  readonly revokedAt: Date | null
  /** When it last authenticated a request, to the minute (written at most once a minute); null if never. */
  readonly lastUsedAt: Date | null
}

/** A webhook signing secret (`whsec_…`); during a rotation the previous one stays valid until `expiresAt`. */
export interface WebhookSecret {
  readonly merchantId: MerchantId
  readonly secret: string
  readonly createdAt: Date
  readonly expiresAt: Date | null
}

export const API_KEY_NAME_MAX = 100

/** Why a key's name is refused, or undefined when it is acceptable (1 to 100 characters, no control characters). */
export function apiKeyNameProblem(name: string): string | undefined {
  const length = [...name].length
  if (length < 1 || length > API_KEY_NAME_MAX) return `must be 1 to ${API_KEY_NAME_MAX} characters`
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters'
  return undefined
}

const KEY = /^mk_[A-Za-z0-9_-]{43}$/

/** docs/api.md#authentication: `mk_` + 43 characters of base64url (32 random bytes). */
export function isWellFormedApiKey(text: string): boolean {
  return KEY.test(text)
}
