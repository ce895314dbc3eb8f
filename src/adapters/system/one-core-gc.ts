/**
 * On a single core, V8's garbage-collection helper threads take turns with the event loop for that core, and
 * the event loop stands still for 10–30 ms now and then; `node --single-threaded-gc` does the same work on the
 * event loop in small steps (README: Operations, "One core"). The flag has to be on Node's command line: set from
 * inside a running process, V8 aborts. So the server only says so when it starts on one core without it.
 */
export const SINGLE_THREADED_GC_FLAG = '--single-threaded-gc'

/**
 * The advice to log at start, or undefined when there is none: `cores` is how many cores this process may run
 * on (`os.availableParallelism()`, which follows the CPU affinity set by taskset or a container's cpuset) and
 * `execArgv` the flags Node was started with.
 */
export function oneCoreGcAdvice(cores: number, execArgv: readonly string[]): string | undefined {
  if (cores !== 1) return undefined
  if (execArgv.some((arg) => arg === SINGLE_THREADED_GC_FLAG || arg === '--single_threaded_gc')) return undefined
  return `one core available: start Node with ${SINGLE_THREADED_GC_FLAG} for shorter pauses (README: Operations, "One core")`
}
