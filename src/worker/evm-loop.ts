import type { WorkerLog } from './sweeper.js'

export interface EvmLoop {
  /** Runs a round now (tests call this instead of waiting). */
  tick(): Promise<void>
  stop(): Promise<void>
}

/**
 * A loop of the evm detector or sweeper (docs/stablecoins.md#detection): a round every `intervalMs`; after a failed
 * round (the RPC endpoint down, the database unavailable) the next waits twice as long, up to `maxBackoffMs`, and
 * one that succeeds brings the interval back. Nothing is kept in memory: the state is the database.
 */
export function startEvmLoop(
  name: string,
  round: () => Promise<void>,
  opts: { intervalMs: number; maxBackoffMs: number; log: WorkerLog },
): EvmLoop {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false
  let failures = 0

  const once = async (): Promise<void> => {
    try {
      await round()
      if (failures > 0) opts.log.info({ worker: name, failures }, 'evm worker recovered')
      failures = 0
    } catch (err) {
      failures += 1
      opts.log.error({ err, worker: name, failures }, 'evm worker round failed; will retry')
    }
  }
  const schedule = (): void => {
    if (stopped) return
    const delay = Math.min(opts.intervalMs * 2 ** Math.min(failures, 20), Math.max(opts.maxBackoffMs, opts.intervalMs))
    timer = setTimeout(() => {
      running = once().finally(() => {
        running = undefined
        schedule()
      })
    }, delay)
    timer.unref()
  }
  schedule()
  return {
    tick: async () => {
      await running
      await once()
    },
    stop: async () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      await running
    },
  }
}
