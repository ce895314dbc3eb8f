// Where a bench run's CPU went, from Linux's /proc: how much CPU time the measured server process used (all its
// threads, user and system) and how busy each core was. With the server pinned to core 0 and wrk to core 1, this
// tells which side a profile's limit is on: a core near 100 % busy is the bottleneck, an idle share is headroom.
// Off Linux (no /proc) every reading is undefined and the bench prints no CPU columns.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** Clock ticks per second of /proc's CPU counters (USER_HZ; 100 on Linux almost everywhere). */
const TICKS_PER_SECOND = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout
  const n = Number(out?.trim())
  return Number.isInteger(n) && n > 0 ? n : 100
})()

/**
 * CPU seconds used so far by process `pid` (user + system, every thread), from the text of `/proc/<pid>/stat`.
 * The command name (field 2) is in parentheses and may itself contain spaces and parentheses, so the fields are
 * counted from the last ')'.
 */
export function parseProcessCpuSeconds(statText, ticksPerSecond = TICKS_PER_SECOND) {
  const rest = statText.slice(statText.lastIndexOf(')') + 2).split(' ')
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15
  const utime = Number(rest[11])
  const stime = Number(rest[12])
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`not a /proc/<pid>/stat line: ${statText.slice(0, 80)}`)
  return (utime + stime) / ticksPerSecond
}

export function processCpuSeconds(pid) {
  try {
    return parseProcessCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}

/** Each core's counters (`cpuN` lines of /proc/stat): user, nice, system, idle, iowait, irq, softirq, steal. */
export function parseCoreTimes(procStatText) {
  return procStatText
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => line.trim().split(/\s+/).slice(1, 9).map(Number))
}

export function coreTimes() {
  try {
    return parseCoreTimes(readFileSync('/proc/stat', 'utf8'))
  } catch {
    return undefined
  }
}

/**
 * Per core, between two `coreTimes()` readings: `busy`, the share of the interval spent on anything but idling
 * or waiting for I/O, and `iowait`, the share spent idle with I/O outstanding.
 */
export function coreShares(before, after) {
  return after.map((now, core) => {
    const then = before[core] ?? now.map(() => 0)
    const d = now.map((v, k) => v - (then[k] ?? 0))
    const total = d.reduce((sum, v) => sum + v, 0)
    if (total <= 0) return { busy: 0, iowait: 0 }
    const idle = (d[3] ?? 0) + (d[4] ?? 0)
    return { busy: (total - idle) / total, iowait: (d[4] ?? 0) / total }
  })
}
