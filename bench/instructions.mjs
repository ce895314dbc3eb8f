// Instructions per operation, counted by valgrind's callgrind: deterministic where wall-clock figures on a shared
// machine are not. The driver runs its operation N times after a fixed warm-up; this runs it twice, N = LOW and
// N = HIGH, and prints (I(HIGH) − I(LOW)) / (HIGH − LOW): the steady state, without start-up, warm-up or the JIT
// compiling the path (done before LOW is reached). Node runs with --predictable --single-threaded, so the two runs
// differ only by the N − LOW extra operations (repeated runs agree within 0.01 %).
//
//   node bench/instructions.mjs bench/drivers/qr-data-uri.mjs [driver arguments…]
//   INSTR_LOW=4000 INSTR_HIGH=12000   the two N
//   INSTR_TOGGLE=1   count only from where the driver asks (its warm-up done, it runs `callgrind_control -i on`):
//                    start-up, module loading and warm-up run uninstrumented, several times faster; for the
//                    drivers that build the whole app (create-invoice, get-info), whose start-up dominates a run
//
// Needs valgrind (Debian: apt-get install valgrind) and a built dist/ for the drivers that load the service's code.
import { spawnSync } from 'node:child_process'

const LOW = Number(process.env.INSTR_LOW ?? 4000)
const HIGH = Number(process.env.INSTR_HIGH ?? 12000)
const [driver, ...args] = process.argv.slice(2)
if (driver === undefined) {
  console.error('usage: node bench/instructions.mjs <driver.mjs> [arguments…]')
  process.exit(2)
}
if (spawnSync('valgrind', ['--version']).error) {
  console.error('instructions: valgrind is not installed (Debian: apt-get install valgrind)')
  process.exit(1)
}

/** Instructions callgrind counted for the whole run of the driver doing `n` operations. */
function count(n) {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      ...(process.env.INSTR_TOGGLE ? ['--instr-atstart=no'] : []),
      process.execPath,
      '--predictable',
      '--single-threaded',
      driver,
      ...args,
    ],
    { encoding: 'utf8', env: { ...process.env, INSTR_N: String(n) }, maxBuffer: 64 * 1024 * 1024 },
  )
  const collected = /Collected : (\d+)/.exec(run.stderr)
  if (run.status !== 0 || collected === null) throw new Error(`callgrind run failed (N = ${n}):\n${run.stderr}`)
  return Number(collected[1])
}

const low = count(LOW)
const high = count(HIGH)
const perOperation = (high - low) / (HIGH - LOW)
console.log(
  JSON.stringify({
    driver,
    args,
    low: { n: LOW, instructions: low },
    high: { n: HIGH, instructions: high },
    per_operation: Math.round(perOperation),
  }),
)
