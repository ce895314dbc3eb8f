import type { EventSignal } from '../../ports/event-signal.js'

/** The in-process doorbell: one per runtime (no module-level singleton), shared by the use cases and the dispatcher. */
export function createEventSignal(): EventSignal {
  const listeners = new Set<() => void>()
  return {
    notify() {
      for (const listener of listeners) {
        try {
          listener()
        } catch {
          // a listener's fault must not fail the use case that already committed
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}
