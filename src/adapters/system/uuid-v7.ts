import { randomFillSync } from 'node:crypto'

/** The ASCII codes of each byte's two hex digits: byte b at 2b and 2b + 1. */
const HEX = new Uint8Array(512)
for (let b = 0; b < 256; b++) {
  const digits = b.toString(16).padStart(2, '0')
  HEX[2 * b] = digits.charCodeAt(0)
  HEX[2 * b + 1] = digits.charCodeAt(1)
}
/** Where each of the 16 bytes' two digits go in the 36-character text (dashes at 8, 13, 18 and 23). */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]
const DASH = 0x2d

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Time-ordered ids keep B-tree inserts at
 * the right edge of the index (random v4 keys slow SQLite inserts on large tables) and are still unguessable:
 * 62 random bits after the 12-bit in-millisecond counter.
 * Within one millisecond the 12-bit counter (rand_a) increases, so ids of one process sort in creation order.
 *
 * Every create makes one: the digits are written as ASCII into a buffer of the generator's and read out as one
 * string, rather than through a hex string, its five slices and their concatenation.
 */
export function createUuidV7(now: () => number = Date.now): () => string {
  const pool = Buffer.allocUnsafe(16 * 256)
  let poolPos = pool.length
  let lastMs = -1
  let counter = 0
  const text = Buffer.alloc(36, DASH)
  return () => {
    if (poolPos === pool.length) {
      randomFillSync(pool)
      poolPos = 0
    }
    const r = poolPos // the id's 16 random bytes: pool[r … r + 15]
    poolPos += 16
    let ms = now()
    if (ms <= lastMs) {
      counter += 1
      if (counter > 0xfff) {
        // counter exhausted in this millisecond: borrow the next one so ordering still holds
        lastMs += 1
        counter = 0
      }
      ms = lastMs
    } else {
      lastMs = ms
      counter = pool[r + 6]! & 0x07 // random start, room to count up
    }
    const high = Math.floor(ms / 0x1000000) // the 48-bit time as 24 + 24 bits
    const low = ms - high * 0x1000000
    hex(text, 0, (high >> 16) & 0xff)
    hex(text, 1, (high >> 8) & 0xff)
    hex(text, 2, high & 0xff)
    hex(text, 3, (low >> 16) & 0xff)
    hex(text, 4, (low >> 8) & 0xff)
    hex(text, 5, low & 0xff)
    hex(text, 6, 0x70 | (counter >> 8)) // version 7
    hex(text, 7, counter & 0xff)
    hex(text, 8, 0x80 | (pool[r + 8]! & 0x3f)) // variant 10
    for (let i = 9; i < 16; i++) hex(text, i, pool[r + i]!)
    return text.toString('latin1')
  }
}

function hex(text: Buffer, byte: number, value: number): void {
  const at = AT[byte]!
  text[at] = HEX[2 * value]!
  text[at + 1] = HEX[2 * value + 1]!
}
