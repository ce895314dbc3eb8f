/**
 * A real redis-server for the tests, one per test file: started on a free loopback port with no persistence,
 * stopped and started again on the same port to stage an outage. Needs Debian's redis-server (.ci/run installs
 * it); outside CI the Redis tests skip where it is missing, in CI they fail (DEVELOPERS: nothing skips in CI).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer, connect } from 'node:net'
import { IS_CI } from './postgres.js'

export const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server'
export const HAS_REDIS = spawnSync(REDIS_SERVER, ['--version']).status === 0
/** Skip the Redis tests: only outside CI, and only without the binary. */
export const SKIP_REDIS = !HAS_REDIS && !IS_CI

export interface TestRedis {
  readonly url: string
  readonly port: number
  /** Kills the server (an outage). */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  start(): Promise<void>
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function untilAccepting(port: number): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)))
      s.on('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`redis-server did not start on port ${port}`)
}

export async function startTestRedis(): Promise<TestRedis> {
  if (!HAS_REDIS) throw new Error(`${REDIS_SERVER} is not installed (Debian: apt-get install redis-server); the Redis tests must run in CI`)
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
    await untilAccepting(port)
  }
  const stop = async (): Promise<void> => {
    const c = child
    child = undefined
    if (c === undefined || c.exitCode !== null) return
    const exited = new Promise((resolve) => c.once('exit', resolve))
    c.kill('SIGKILL')
    await exited
  }
  await start()
  return { url: `redis://127.0.0.1:${port}`, port, stop, start }
}
