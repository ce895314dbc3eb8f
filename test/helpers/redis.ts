/**
 * Redis for tests: `TEST_REDIS_URL` names a redis-server the tests may write to (.ci/run starts one on
 * 127.0.0.1:6390 and sets it). Test files share it and run in parallel, so each keeps to keys of its own: a random
 * key prefix for a limiter, fresh key ids and random client addresses for an app (which uses the default prefix).
 * Without TEST_REDIS_URL the Redis tests skip, except in CI, where they fail (DEVELOPERS: nothing skips in CI).
 * The server itself is never stopped: outages are staged by a TCP proxy in front of it.
 */
import { randomBytes, randomInt } from 'node:crypto'
import { IS_CI } from './postgres.js'
import { startProxy, type TcpProxy } from './tcp-proxy.js'

/** The Redis URL the Redis tests run against; undefined when they are to be skipped. */
export const TEST_REDIS_URL: string | undefined = process.env.TEST_REDIS_URL?.trim() || undefined

/** Skip the Redis tests: only outside CI, and only without TEST_REDIS_URL. */
export const SKIP_REDIS = TEST_REDIS_URL === undefined && !IS_CI

export const MISSING_REDIS_IN_CI =
  'TEST_REDIS_URL is not set, but CI is: the Redis tests must run in CI (.ci/run starts redis-server and sets it)'

/** The URL to test against, with its port spelt out; throws when there is none (outside CI callers skip instead). */
export function requireTestRedisUrl(): string {
  if (TEST_REDIS_URL === undefined) throw new Error(IS_CI ? MISSING_REDIS_IN_CI : 'TEST_REDIS_URL is not set')
  const u = new URL(TEST_REDIS_URL)
  if (u.port === '') u.port = '6379'
  return u.toString()
}

/** A key prefix no other test uses. */
export const testKeyPrefix = (): string => `test:${randomBytes(6).toString('hex')}:`

/** A client address no other test uses (for the failed-authentication windows, which are per address). */
export const testAddress = (): string => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`

/**
 * The test Redis behind a TCP proxy of its own: `stop()` is Redis going away (links cut, connections refused),
 * `start()` it coming back (with its data: the server never stopped), `freeze()` a link that stops answering.
 */
export function redisBehindProxy(): Promise<TcpProxy> {
  return startProxy(requireTestRedisUrl())
}
