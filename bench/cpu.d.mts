// Types of bench/cpu.mjs for the tests that import it.
export function parseProcessCpuSeconds(statText: string, ticksPerSecond?: number): number
export function processCpuSeconds(pid: number): number | undefined
export type CoreCounters = number[]
export function parseCoreTimes(procStatText: string): CoreCounters[]
export function coreTimes(): CoreCounters[] | undefined
export function coreShares(
  before: readonly CoreCounters[],
  after: readonly CoreCounters[],
): Array<{ busy: number; iowait: number }>
