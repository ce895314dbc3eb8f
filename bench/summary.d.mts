// Types of bench/summary.mjs for the tests that import it.
export interface ProfileResult {
  key: string
  profile: string
  floor?: string
  rps: number
  p50_ms: number
  p99_ms: number
  errors: number
  server_time?: { p99_ms: number; max_ms: number } | undefined
  cpu_us_per_request?: number | undefined
  cores?: Array<{ busy: number; iowait: number }> | undefined
  ratio?: number | undefined
  ratio_to_floor?: number
}
export function median(values: readonly (number | undefined)[]): number | undefined
export interface Slice {
  requests: number
  seconds: number
  p50_ms: number
  p99_ms: number
  errors: number
}
export function combineSlices(slices: readonly Slice[]): {
  rps: number
  requests: number
  p50_ms: number | undefined
  p99_ms: number | undefined
  errors: number
}
export function withRatios(results: readonly ProfileResult[]): ProfileResult[]
export function medianOfRuns(runs: readonly (readonly ProfileResult[])[]): ProfileResult[]
export function headline(results: readonly ProfileResult[]): string[]
