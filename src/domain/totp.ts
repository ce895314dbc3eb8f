/**
 * TOTP (RFC 6238) over HOTP (RFC 4226), pure: the HMAC is passed in (the adapter's node:crypto), so the domain
 * stays free of I/O and the RFC's test vectors run here. SHA-1, 30-second steps, 6 digits: what every
 * authenticator app reads from an otpauth:// URI without further parameters.
 */

/** HMAC of `message` under `key` with the algorithm the caller chose (SHA-1 for authenticator apps). */
export type Hmac = (key: Uint8Array, message: Uint8Array) => Uint8Array

export const TOTP_STEP_SECONDS = 30
export const TOTP_DIGITS = 6

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 base32 without padding: how authenticator apps take a secret. */
export function base32Encode(bytes: Uint8Array): string {
  let out = ''
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
  return out
}

/** The bytes of a base32 text (case, spaces and padding ignored); undefined when it is not base32. */
export function base32Decode(text: string): Uint8Array | undefined {
  const clean = text.replace(/[\s=]/g, '').toUpperCase()
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const ch of clean) {
    const v = BASE32.indexOf(ch)
    if (v < 0) return undefined
    value = ((value << 5) | v) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Uint8Array.from(out)
}

/** RFC 4226 §5.3: the HOTP value of `counter`, as `digits` decimal digits. */
export function hotp(hmac: Hmac, key: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const message = new Uint8Array(8)
  let c = counter
  for (let i = 7; i >= 0; i--) {
    message[i] = c % 256
    c = Math.floor(c / 256)
  }
  const h = hmac(key, message)
  const offset = (h[h.length - 1] ?? 0) & 0x0f
  const binary =
    (((h[offset] ?? 0) & 0x7f) << 24) |
    ((h[offset + 1] ?? 0) << 16) |
    ((h[offset + 2] ?? 0) << 8) |
    (h[offset + 3] ?? 0)
  return String(binary % 10 ** digits).padStart(digits, '0')
}

/** RFC 6238 §4: the time step `now` falls in. */
export function totpCounter(now: Date, step = TOTP_STEP_SECONDS): number {
  return Math.floor(now.getTime() / 1000 / step)
}

/** The TOTP value at `now`. */
export function totp(hmac: Hmac, key: Uint8Array, now: Date, digits = TOTP_DIGITS): string {
  return hotp(hmac, key, totpCounter(now), digits)
}

/**
 * The time step whose TOTP value `code` is, among the current one and the one before or after (RFC 6238 §5.2: one
 * step of clock drift either way); undefined when none. Every candidate is computed and compared, so the time taken
 * says nothing of which matched. The caller refuses a step already used (§5.2: a code is accepted once).
 */
export function matchTotp(hmac: Hmac, key: Uint8Array, code: string, now: Date): number | undefined {
  const wanted = code.replace(/\s/g, '')
  if (!/^\d{6}$/.test(wanted)) return undefined
  const counter = totpCounter(now)
  let matched: number | undefined
  for (const c of [counter - 1, counter, counter + 1]) if (sameDigits(hotp(hmac, key, c), wanted)) matched ??= c
  return matched
}

/** Whether `code` is the TOTP value of the current step or a neighbour (see `matchTotp`). */
export function verifyTotp(hmac: Hmac, key: Uint8Array, code: string, now: Date): boolean {
  return matchTotp(hmac, key, code, now) !== undefined
}

function sameDigits(a: string, b: string): boolean {
  let diff = a.length ^ b.length
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

/** The otpauth:// URI an authenticator app scans (Key Uri Format): issuer and account label, the base32 secret. */
export function otpauthUri(issuer: string, account: string, secretBase32: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`)
  return `otpauth://totp/${label}?secret=${secretBase32}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_STEP_SECONDS}`
}
