/**
 * An in-process doorbell between the use cases that write outbox events and the webhook dispatcher: rung
 * after a transaction that wrote events has committed, so a new event is sent at once instead of on the next
 * poll (docs/architecture.md#retries-are-rows-not-sleeps). Losing a ring loses nothing — the rows are the truth and the dispatcher also polls
 * (which covers other instances' events and retries coming due).
 */
export interface EventSignal {
  /** Call after the commit, never inside the transaction: the dispatcher must be able to see the rows. */
  notify(): void
  /** Calls `listener` on every notify until the returned function is called. */
  subscribe(listener: () => void): () => void
}
