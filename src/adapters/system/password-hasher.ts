import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import type { PasswordHasher } from '../../ports/password-hasher.js'

/**
 * scrypt parameters. The default is OWASP's Password Storage Cheat Sheet figure: N = 2^17, r = 8, p = 1 (128 MiB
 * and, on this project's CI machine, a few hundred milliseconds per hash on the libuv thread pool, not the event loop).
 */
export interface ScryptParams {
  readonly log2N: number
  readonly r: number
  readonly p: number
}

export const OWASP_SCRYPT: ScryptParams = { log2N: 17, r: 8, p: 1 }
const KEY_LENGTH = 32

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.log2N
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 128 * N * params.r * 2 }
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  )
}

/**
 * Stored as `scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>`: a hash keeps verifying after the default
 * parameters rise. `params` lower than the default only in tests.
 */
export function createScryptHasher(params: ScryptParams = OWASP_SCRYPT): PasswordHasher {
  const dummySalt = randomBytes(16)
  return {
    async hash(password) {
      const salt = randomBytes(16)
      const key = await derive(password, salt, params)
      return ['scrypt', params.log2N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$')
    },
    async verify(password, stored) {
      const parts = stored.split('$')
      if (parts.length !== 6 || parts[0] !== 'scrypt') return false
      const [log2N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number]
      if (![log2N, r, p].every((n) => Number.isInteger(n) && n > 0) || log2N > 22) return false
      const expected = Buffer.from(parts[5] ?? '', 'base64')
      const key = await derive(password, Buffer.from(parts[4] ?? '', 'base64'), { log2N, r, p })
      return key.length === expected.length && timingSafeEqual(key, expected)
    },
    async verifyDummy(password) {
      await derive(password, dummySalt, params)
      return false
    },
  }
}
