import fc from 'fast-check'
import { PNG } from 'pngjs'
import { describe, expect, it } from 'vitest'
import { crc32, inflateSync } from 'node:zlib'
import { modulesPng, QUIET, SCALE } from './qr-png.js'

// modulesPng writes the zlib stream itself (no general-purpose deflate), so these tests check it against what a
// straightforward encoder means: the scanlines, filter byte 0 then one bit per pixel, 1 = light.
function expectedScanlines(size: number, data: Uint8Array): Buffer {
  const side = (size + 2 * QUIET) * SCALE
  const lineBytes = 1 + Math.ceil(side / 8)
  const raw = Buffer.alloc(lineBytes * side)
  for (let y = 0; y < side; y += SCALE) {
    const r = y / SCALE - QUIET
    const line = raw.subarray(y * lineBytes, (y + 1) * lineBytes)
    for (let x = 0; x < lineBytes * 8 - 8; x++) {
      const c = Math.floor(x / SCALE) - QUIET
      const dark = x < side && r >= 0 && c >= 0 && r < size && c < size && data[r * size + c] === 1
      if (!dark) line[1 + (x >> 3)] = (line[1 + (x >> 3)] ?? 0) | (0x80 >> (x & 7))
    }
    for (let k = 1; k < SCALE; k++) line.copy(raw, (y + k) * lineBytes)
  }
  return raw
}

/** The chunks of a PNG, each with whether its CRC-32 is right. */
function chunks(png: Buffer): { type: string; data: Buffer; crcOk: boolean }[] {
  const out = []
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at)
    const type = png.subarray(at + 4, at + 8).toString('latin1')
    const data = png.subarray(at + 8, at + 8 + length)
    const crcOk = png.readUInt32BE(at + 8 + length) === crc32(png.subarray(at + 4, at + 8 + length))
    out.push({ type, data, crcOk })
    at += 12 + length
  }
  return out
}

/** Every size a QR symbol has: versions 1–40, 21 to 177 modules. */
const SIZES = Array.from({ length: 40 }, (_, i) => 21 + 4 * i)

function check(size: number, data: Uint8Array): void {
  const png = Buffer.from(modulesPng(size, data))
  const parts = chunks(png)
  expect(parts.map((p) => p.type)).toEqual(['IHDR', 'IDAT', 'IEND'])
  expect(parts.every((p) => p.crcOk)).toBe(true)
  // zlib itself accepts the stream (and checks its Adler-32), and it holds exactly the scanlines
  const raw = inflateSync(parts[1]!.data)
  expect(raw.equals(expectedScanlines(size, data))).toBe(true)
  // an independent PNG reader agrees on the size and the pixels' format
  const image = PNG.sync.read(png)
  expect(image.width).toBe((size + 2 * QUIET) * SCALE)
}

describe('modulesPng', () => {
  it.each(SIZES)('when the symbol is %i modules wide, then random modules give exactly their scanlines', (size) => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: size * size, maxLength: size * size, max: 1 }), (data) =>
        check(size, data),
      ),
      { numRuns: 4 },
    )
  })

  it.each(SIZES)('when every module of a %i-wide symbol is dark, light or alternating, then exactly those', (size) => {
    check(size, new Uint8Array(size * size).fill(1))
    check(size, new Uint8Array(size * size))
    check(
      size,
      Uint8Array.from({ length: size * size }, (_, i) => (i + Math.floor(i / size)) % 2),
    )
  })

  it('returns a view its next call overwrites: callers copy it (qrPng does)', () => {
    const first = modulesPng(21, new Uint8Array(21 * 21).fill(1))
    const kept = Buffer.from(first)
    modulesPng(21, new Uint8Array(21 * 21))
    expect(first.equals(kept)).toBe(false)
  })
})
