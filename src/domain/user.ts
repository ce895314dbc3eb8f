/** Dashboard users, their one-time links and their sessions (docs/dashboard.md). */
import type { MerchantId, SessionId, UserId } from './ids.js'

/** `owner`: everything of one merchant; `viewer`: read only; `admin`: the operator, every merchant. */
export type Role = 'owner' | 'viewer' | 'admin'
export const MERCHANT_ROLES: readonly Role[] = ['owner', 'viewer']

export interface User {
  readonly id: UserId
  /** Null for an operator (`admin`); the merchant of every other user. */
  readonly merchantId: MerchantId | null
  /** Lower-cased; one account per address. */
  readonly email: string
  readonly role: Role
  /** The password's scrypt hash; null until the invitation is accepted. Never logged. */
  readonly passwordHash: string | null
  /** The TOTP secret in base32; set at enrolment, in force once `totpEnabledAt` is. Never logged. */
  readonly totpSecret: string | null
  readonly totpEnabledAt: Date | null
  readonly passwordChangedAt: Date | null
  readonly createdAt: Date
}

export type LinkPurpose = 'invite' | 'reset'

/** A one-time link where a password is set: stored as the SHA-256 of its token, valid once, for 24 h. */
export interface UserLink {
  readonly id: string
  readonly userId: UserId
  readonly purpose: LinkPurpose
  readonly hash: string
  readonly createdAt: Date
  readonly expiresAt: Date
  readonly usedAt: Date | null
}

/** 'totp': the password was right, the second factor is still due; 'full': signed in. */
export type SessionStage = 'totp' | 'full'

/** A server-side session: the cookie holds a random token, the row its SHA-256. */
export interface Session {
  readonly id: SessionId
  readonly hash: string
  readonly userId: UserId
  readonly stage: SessionStage
  /** The token every form of the session carries (docs/dashboard.md#sessions). */
  readonly csrfToken: string
  readonly createdAt: Date
  readonly lastSeenAt: Date
  readonly endedAt: Date | null
}

export const LINK_LIFETIME_MS = 24 * 3600_000
export const SESSION_IDLE_MS = 30 * 60_000
export const SESSION_ABSOLUTE_MS = 12 * 3600_000
/** A session waiting for its second factor lasts this long. */
export const SECOND_FACTOR_MS = 5 * 60_000
export const PASSWORD_MIN_LENGTH = 12
/** Far above any passphrase; bounds the work one request can ask of the KDF. */
export const PASSWORD_MAX_LENGTH = 1024
export const RECOVERY_CODE_COUNT = 10

/** Whether the session still signs its user in at `now`: not ended, within the idle and absolute timeouts. */
export function isSessionLive(s: Session, now: Date): boolean {
  if (s.endedAt !== null) return false
  const t = now.getTime()
  const absolute = s.stage === 'totp' ? SECOND_FACTOR_MS : SESSION_ABSOLUTE_MS
  return t - s.lastSeenAt.getTime() < SESSION_IDLE_MS && t - s.createdAt.getTime() < absolute
}

/** Whether a link can still be used at `now`. */
export function isLinkUsable(l: UserLink, now: Date): boolean {
  return l.usedAt === null && now.getTime() < l.expiresAt.getTime()
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** The address as stored (trimmed, lower-cased), or undefined when it does not look like one. */
export function normalizeEmail(text: string): string | undefined {
  const e = text.trim().toLowerCase()
  return e.length <= 254 && EMAIL.test(e) ? e : undefined
}

/** Why a new password is refused, or undefined when it is acceptable. Length only: no composition rules (NIST SP 800-63B). */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`
  return undefined
}

/** A role given on the command line or in the admin API, or undefined when it is none of a merchant's. */
export function parseMerchantRole(text: string): Role | undefined {
  return MERCHANT_ROLES.find((r) => r === text)
}

/** Failed sign-ins allowed per window, per account and per client address (docs/dashboard.md#sign-in). */
export const SIGN_IN_LIMITS = {
  account: { failures: 5, windowMs: 15 * 60_000 },
  address: { failures: 20, windowMs: 15 * 60_000 },
} as const
