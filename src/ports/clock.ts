/** The source of time: the system clock in production, a fake clock in tests (never sleep to wait for expiry). */
export interface Clock {
  now(): Date
}
