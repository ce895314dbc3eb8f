import { randomFillSync } from 'node:crypto'

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Time-ordered ids keep B-tree inserts at
 * the right edge of the index (random v4 keys slow SQLite inserts on large tables) and are still unguessable:
 * 62 random bits after the 12-bit in-millisecond counter.
 * Within one millisecond the 12-bit counter (rand_a) increases, so ids of one process sort in creation order.
 */
export function createUuidV7(now: () => number = Date.now): () => string {
  const pool = Buffer.allocUnsafe(16 * 256)
  let poolPos = pool.length
  let lastMs = -1
  let counter = 0
  return () => {
    if (poolPos === pool.length) {
      randomFillSync(pool)
      poolPos = 0
    }
    const b = pool.subarray(poolPos, poolPos + 16)
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
      counter = b[6]! & 0x07 // random start, room to count up
    }
    b.writeUIntBE(ms, 0, 6)
    b[6] = 0x70 | (counter >> 8)
    b[7] = counter & 0xff
    b[8] = 0x80 | (b[8]! & 0x3f)
    const h = b.toString('hex')
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
}
