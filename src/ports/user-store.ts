/** The repositories of dashboard users, their links, recovery codes, sessions and sign-in throttle (docs/dashboard.md). */
import type { MerchantId, SessionId, UserId } from '../domain/ids.js'
import type { Role, Session, User, UserLink } from '../domain/user.js'

export interface UserReader {
  findById(id: UserId): Promise<User | undefined>
  /** By the lower-cased address. */
  findByEmail(email: string): Promise<User | undefined>
  /** A merchant's users, oldest first. */
  listByMerchant(merchantId: MerchantId): Promise<User[]>
  /** When each of the merchant's users last signed in (their latest full session's start); absent: not known. */
  lastSignIns(merchantId: MerchantId): Promise<Map<UserId, Date>>
}

export interface UserRepo extends UserReader {
  /** Inserts unless a user has this address already (the unique index decides). */
  insert(user: User): Promise<'inserted' | 'email_taken'>
  setPassword(id: UserId, passwordHash: string, at: Date): Promise<void>
  /** Sets the TOTP secret and when it came into force (null: enrolment begun, not confirmed). */
  setTotp(id: UserId, secret: string | null, enabledAt: Date | null): Promise<void>
  /** Compare-and-set: records TOTP time step `step` as used, only if it is later than the last one; false otherwise. */
  useTotpStep(id: UserId, step: number): Promise<boolean>
  /**
   * Makes the merchant's team changes of this transaction take turns with any other's: PostgreSQL locks the
   * merchant's row until commit (SQLite has one writer), so two owners demoted at once cannot leave none.
   */
  lockTeam(merchantId: MerchantId): Promise<void>
  /** Sets the role of the merchant's user; false when the merchant has no such user. */
  setRole(id: UserId, merchantId: MerchantId, role: Role): Promise<boolean>
  /** Deletes the merchant's user with their sessions, links and recovery codes; false when there is no such user. */
  remove(id: UserId, merchantId: MerchantId): Promise<boolean>
  /** How many owners the merchant has. */
  countOwners(merchantId: MerchantId): Promise<number>
}

export interface UserLinkRepo {
  insert(link: UserLink): Promise<void>
  findByHash(hash: string): Promise<UserLink | undefined>
  /** Compare-and-set: marks the link used at `at` only if it is still unused; false when another use won. */
  markUsed(id: string, at: Date): Promise<boolean>
  /** Marks every unused link of the user used (a new link, or a password set, retires the earlier ones). */
  retireAll(userId: UserId, at: Date): Promise<void>
  /** Deletes up to `limit` links that expired before `before`; returns how many. */
  purge(before: Date, limit: number): Promise<number>
}

export interface RecoveryCodeRepo {
  /** Replaces the user's codes with these hashes (a new enrolment). */
  replace(userId: UserId, hashes: readonly { id: string; hash: string }[]): Promise<void>
  /** Compare-and-set: uses the unused code with this hash; false when there is none. */
  use(userId: UserId, hash: string, at: Date): Promise<boolean>
  /** How many unused codes are left. */
  countUnused(userId: UserId): Promise<number>
}

export interface SessionRepo {
  insert(session: Session): Promise<void>
  /** The session with this hash, ended or not. */
  findByHash(hash: string): Promise<Session | undefined>
  /** Moves last_seen_at forward (the idle timeout runs from it). */
  touch(id: SessionId, at: Date): Promise<void>
  /** Ends one session; false when it had ended already. */
  end(id: SessionId, at: Date): Promise<boolean>
  /** Ends every live session of the user (sign-out everywhere, a password change); returns how many. */
  endAllOfUser(userId: UserId, at: Date): Promise<number>
  /**
   * Deletes up to `limit` sessions that were over before `before` — ended, idle for longer than `idleMs` or older
   * than `absoluteMs` by then; returns how many.
   */
  purge(before: Date, idleMs: number, absoluteMs: number, limit: number): Promise<number>
}

/** Failed sign-ins per key (`account:…`, `address:…`) in fixed windows, shared by every instance through the database. */
export interface SignInThrottleRepo {
  /** The failures counted in the window that is current at `now`. */
  failures(key: string, now: Date, windowMs: number): Promise<number>
  /** Counts one failure (starting a new window when the last one is over) and returns the window's count. */
  recordFailure(key: string, now: Date, windowMs: number): Promise<number>
  clear(key: string): Promise<void>
  /** Deletes up to `limit` keys whose window began at or before `before` (over: they count nothing); returns how many. */
  purge(before: Date, limit: number): Promise<number>
}
