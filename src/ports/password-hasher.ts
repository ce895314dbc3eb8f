/** Memory-hard password hashing (docs/dashboard.md#passwords); the adapter is node:crypto's scrypt. */
export interface PasswordHasher {
  /** A self-describing hash of `password` (algorithm, parameters, salt, hash): what is stored. */
  hash(password: string): Promise<string>
  /** Whether `password` matches `stored`, compared in constant time. */
  verify(password: string, stored: string): Promise<boolean>
  /**
   * Spends the time a verify takes and answers false: for an unknown account, so that its answer takes as long as a
   * wrong password's and the timing does not tell which accounts exist.
   */
  verifyDummy(password: string): Promise<false>
}
