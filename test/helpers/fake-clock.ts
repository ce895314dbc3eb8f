import type { Clock } from '../../src/ports/clock.js'

/** A clock tests move by hand: nothing sleeps to wait for expiry. */
export class FakeClock implements Clock {
  private ms: number
  constructor(start: Date | string = '2026-11-22T10:00:00.000Z') {
    this.ms = new Date(start).getTime()
  }
  now(): Date {
    return new Date(this.ms)
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000
  }
  set(at: Date | string): void {
    this.ms = new Date(at).getTime()
  }
}
