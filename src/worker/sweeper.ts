/** The minimal logger a worker needs (pino's shape). */
export interface WorkerLog {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface Sweep {
  readonly name: string
  /** Moves what is due; returns how many invoices it moved. */
  run(): Promise<number>
}

export interface Sweeper {
  /** Runs every sweep now (tests call this instead of waiting). */
  tick(): Promise<void>
  stop(): Promise<void>
}

/**
 * Runs the clock-driven transitions every `intervalMs` (docs/api.md#statuses: an expiry's event within about a second).
 * Each sweep is a cheap indexed query when nothing is due; a full batch is followed at once by the next one.
 * Restart-safe: the state is the database, and every move is a compare-and-set.
 */
export function startSweeper(
  sweeps: readonly Sweep[],
  opts: { intervalMs: number; log: WorkerLog; batch: number },
): Sweeper {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false

  const tick = async (): Promise<void> => {
    for (const sweep of sweeps) {
      try {
        let moved: number
        do {
          moved = await sweep.run()
          if (moved > 0) opts.log.info({ sweep: sweep.name, moved }, 'moved by the clock')
        } while (moved >= opts.batch && !stopped)
      } catch (err) {
        // storage hiccups are retried on the next tick; nothing is lost, the rows stay due
        opts.log.error({ err, sweep: sweep.name }, 'sweep failed; will retry')
      }
    }
  }

  const schedule = (): void => {
    if (stopped) return
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = undefined
        schedule()
      })
    }, opts.intervalMs)
    timer.unref()
  }
  schedule()

  return {
    tick: async () => {
      await running
      await tick()
    },
    stop: async () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      await running
    },
  }
}
