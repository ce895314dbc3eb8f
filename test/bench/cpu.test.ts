import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { coreShares, coreTimes, parseCoreTimes, parseProcessCpuSeconds, processCpuSeconds } from '../../bench/cpu.mjs'

// The bench's CPU columns (bench/cpu.mjs): a server's CPU time per request and how busy each core was.
describe('bench CPU accounting', () => {
  it('reads utime + stime from a /proc/<pid>/stat line whose command name holds spaces and parentheses', () => {
    // fields 14 and 15 (utime, stime) are 250 and 50 ticks
    const line =
      '4242 (node (bench) x) S 1 4242 4242 0 -1 4194560 9001 0 0 0 250 50 0 0 20 0 11 0 123 1000 200 18446744073709551615'
    expect(parseProcessCpuSeconds(line, 100)).toBeCloseTo(3.0, 10)
    expect(() => parseProcessCpuSeconds('garbage', 100)).toThrow(/not a \/proc/)
  })

  it("turns two /proc/stat readings into each core's busy and iowait shares", () => {
    const before = parseCoreTimes(
      'cpu  1 1 1 1 1 1 1 1 0 0\ncpu0 100 0 50 800 50 0 0 0 0 0\ncpu1 10 0 10 900 0 0 0 0 0 0\nintr 5\n',
    )
    const after = parseCoreTimes(
      'cpu  1 1 1 1 1 1 1 1 0 0\ncpu0 170 0 70 800 60 0 0 0 0 0\ncpu1 15 0 15 990 0 0 0 0 0 0\nintr 9\n',
    )
    expect(before).toHaveLength(2) // the aggregate `cpu` line is not a core
    const [core0, core1] = coreShares(before, after)
    // core 0: 70 user + 20 system busy, 10 iowait, no idle, of 100 ticks
    expect(core0?.busy).toBeCloseTo(0.9, 10)
    expect(core0?.iowait).toBeCloseTo(0.1, 10)
    // core 1: 10 busy of 100
    expect(core1?.busy).toBeCloseTo(0.1, 10)
    expect(core1?.iowait).toBe(0)
  })

  it.runIf(process.platform === 'linux')(
    "measures the CPU a real busy process used, and finds it in the cores' busy time",
    async () => {
      // The child spins until it has used 300 ms of CPU by its own count, says so, and waits to be killed: a
      // loaded machine (the other test files) makes this slower, never different.
      const spin =
        "const s = process.cpuUsage(); while (process.cpuUsage(s).user + process.cpuUsage(s).system < 300000) {} console.log('done'); setInterval(() => {}, 1000)"
      const cores = coreTimes()
      const started = performance.now()
      const child = spawn(process.execPath, ['-e', spin], { stdio: ['ignore', 'pipe', 'inherit'] })
      try {
        await new Promise((resolve) => child.stdout.once('data', resolve))
        const wallSeconds = (performance.now() - started) / 1000
        const used = processCpuSeconds(child.pid ?? -1) ?? 0
        const shares = coreShares(cores ?? [], coreTimes() ?? [])
        // 300 ms of spinning plus Node's start-up, counted in clock ticks of 10 ms
        expect(used).toBeGreaterThanOrEqual(0.29)
        expect(used).toBeLessThan(0.3 + wallSeconds)
        // the cores were busy for at least that long in all (with everything else this machine ran meanwhile)
        const busySeconds = shares.reduce((sum, s) => sum + s.busy, 0) * wallSeconds
        expect(busySeconds).toBeGreaterThan(0.25)
      } finally {
        child.kill()
      }
      expect(processCpuSeconds(2 ** 30)).toBeUndefined() // no such process
    },
  )
})
