// A QR module matrix as a 1-bit grayscale PNG, written without a general-purpose compressor.
//
// The image has a structure a general deflate has to rediscover on every call: each module row is SCALE identical
// scanlines, the quiet zone is light, and a packed scanline byte can only take a few values (8 pixels cover two or
// three modules). So the zlib stream is written directly, as one block with Huffman codes fixed per symbol size:
// the first scanline of a module row as literals, its SCALE-1 copies as matches at a distance of one scanline, the
// quiet rows as runs. Everything that depends only on the size is made once and kept (`planFor`): the codes, the
// PNG signature and IHDR, the block header, the encoded quiet zones and their Adler-32 sums. Per image what remains
// is reading the modules 8 at a time (40 pixels, 5 bytes) and writing their codes and Adler-32 sums from tables,
// a copied scanline's sums in O(1), and one CRC-32 (native) over the IDAT chunk.
import { crc32 } from 'node:zlib'
import {
  BitSink,
  canonicalCodes,
  codeLengths,
  distanceCode,
  lengthCode,
  matchLengths,
  writeDynamicHeader,
} from './deflate-huffman.js'

/** Pixels per module: a typical pay URL (version 4, 33 modules) becomes 205 px, readable on a phone screen. */
export const SCALE = 5
/** The QR spec requires 4 light modules around the symbol; scanners fail more often without them. */
export const QUIET = 4

const ADLER_MOD = 65521
const END_OF_BLOCK = 256
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
/** The IEND chunk: length 0, type, CRC-32 of the type. */
const IEND = Uint8Array.of(0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82)
/** Where the IDAT chunk's length field starts: after the signature (8) and IHDR (12 + 13). */
const IDAT_AT = 33

interface Plan {
  /** Bytes of a scanline: the filter-type byte (0, None) and the packed pixels. */
  readonly lineBytes: number
  /** Whole 8-module groups in a row (the quiet zone included), and the bytes of the partial group after them. */
  readonly groups: number
  readonly lastBytes: number
  /** Per group of 8 modules (bit 7: the leftmost, 1 = dark): the codes of its bytes 0–2 and 3–4, as bit runs. */
  readonly lowBits: Int32Array
  readonly lowLengths: Uint8Array
  readonly highBits: Int32Array
  readonly highLengths: Uint8Array
  /** Each byte value's Huffman code (written LSB first) and length in bits. */
  readonly codes: Uint16Array
  readonly lengths: Uint8Array
  /** Signature, IHDR, IDAT header, zlib header, block header, top quiet zone, first filter byte: whole bytes… */
  readonly prefix: Uint8Array
  /** …and the bits of the unfinished byte after them. */
  readonly prefixTail: number
  readonly prefixTailLength: number
  /** Adler-32's two sums over the top quiet zone's scanlines. */
  readonly adlerA: number
  readonly adlerB: number
  /** The matches copying a row's first scanline SCALE-1 times, then the next scanline's filter byte: bit runs. */
  readonly copyBits: Int32Array
  readonly copyLengths: Uint8Array
  /** The rest of the bottom quiet zone and the end of the block, as bit runs. */
  readonly suffixBits: Int32Array
  readonly suffixLengths: Uint8Array
  /** What the bottom quiet zone's bytes add to Adler-32: their count, their sum, and Σ (count − i) · byte[i]. */
  readonly suffixCount: number
  readonly suffixSum: number
  readonly suffixWeighted: number
  /** An upper bound of the PNG's size. */
  readonly maxBytes: number
}

/** The 5 bytes (40 pixels, 1 = light) of each group of 8 modules (bit 7 the leftmost, 1 = dark). */
const GROUP_BYTES = new Uint8Array(256 * 5)
/** Per group: the sum of its bytes, and Σ (5 − i) · byte[i], what appending them adds to Adler-32's sums. */
const GROUP_SUM = new Int32Array(256)
const GROUP_WEIGHTED = new Int32Array(256)
for (let key = 0; key < 256; key++) {
  for (let x = 0; x < 40; x++) {
    const dark = (key >> (7 - Math.floor(x / SCALE))) & 1
    if (dark === 0) GROUP_BYTES[key * 5 + (x >> 3)] = (GROUP_BYTES[key * 5 + (x >> 3)] as number) | (0x80 >> (x & 7))
  }
  for (let i = 0; i < 5; i++) {
    const byte = GROUP_BYTES[key * 5 + i] as number
    GROUP_SUM[key] = (GROUP_SUM[key] as number) + byte
    GROUP_WEIGHTED[key] = (GROUP_WEIGHTED[key] as number) + (5 - i) * byte
  }
}

const plans = new Map<number, Plan>()
let scratch = Buffer.alloc(0)

/**
 * The PNG of a `size` × `size` module matrix (`data[row * size + col]`, 1 = dark), with the quiet zone, at SCALE
 * pixels per module. The bytes are a view of a buffer the next call overwrites: copy them to keep them.
 */
export function modulesPng(size: number, data: Uint8Array): Buffer {
  const plan = planFor(size)
  if (scratch.length < plan.maxBytes) scratch = Buffer.alloc(plan.maxBytes)
  const out = scratch
  const { lineBytes, groups, lastBytes, lowBits, lowLengths, highBits, highLengths, codes, lengths } = plan
  const { copyBits, copyLengths } = plan
  out.set(plan.prefix, 0)
  let pos = plan.prefix.length
  let acc = plan.prefixTail // bits not yet written, n of them (< 8 before each run is added)
  let n = plan.prefixTailLength
  let a = plan.adlerA
  let b = plan.adlerB

  for (let base = 0; base < size * size; base += size) {
    // The row's first scanline: its filter byte (0, already in the stream) adds nothing to Adler-32's first sum.
    const a0 = a
    const b0 = b
    b += a
    // Then its pixels, by groups of 8 modules = 40 pixels = 5 bytes; the first group starts with the 4 modules of
    // the quiet zone (light: 0), the last whole ones may end in it.
    let c = 4
    let key = 0
    for (let g = 0; g < groups; g++) {
      if (g === 0) {
        key = (d(data, base) << 3) | (d(data, base + 1) << 2) | (d(data, base + 2) << 1) | d(data, base + 3)
      } else if (c + 8 <= size) {
        const i = base + c
        key = (d(data, i) << 7) | (d(data, i + 1) << 6) | (d(data, i + 2) << 5) | (d(data, i + 3) << 4)
        key |= (d(data, i + 4) << 3) | (d(data, i + 5) << 2) | (d(data, i + 6) << 1) | d(data, i + 7)
        c += 8
      } else {
        for (const end = c + 8; c < end; c++) key = ((key << 1) | (c < size ? d(data, base + c) : 0)) & 0xff
      }
      b += 5 * a + (GROUP_WEIGHTED[key] as number)
      a += GROUP_SUM[key] as number
      while (n >= 8) {
        out[pos++] = acc & 0xff
        acc >>= 8
        n -= 8
      }
      acc |= (lowBits[key] as number) << n
      n += lowLengths[key] as number
      while (n >= 8) {
        out[pos++] = acc & 0xff
        acc >>= 8
        n -= 8
      }
      acc |= (highBits[key] as number) << n
      n += highLengths[key] as number
    }
    // the partial group at the end, 1 or 5 modules: the row's last module or none, then the quiet zone's light ones
    key = c < size ? d(data, base + c) << 7 : 0
    for (let i = key * 5; i < key * 5 + lastBytes; i++) {
      const byte = GROUP_BYTES[i] as number
      a += byte
      b += a
      while (n >= 8) {
        out[pos++] = acc & 0xff
        acc >>= 8
        n -= 8
      }
      acc |= (codes[byte] as number) << n
      n += lengths[byte] as number
    }
    // The scanline's SCALE-1 copies: in the stream a few matches; in Adler-32 the same sums again, O(1) each.
    const sum = a - a0
    const weighted = b - b0 - lineBytes * a0
    for (let k = 1; k < SCALE; k++) {
      b = (b + lineBytes * a + weighted) % ADLER_MOD
      a = (a + sum) % ADLER_MOD
    }
    for (let k = 0; k < copyBits.length; k++) {
      while (n >= 8) {
        out[pos++] = acc & 0xff
        acc >>= 8
        n -= 8
      }
      acc |= (copyBits[k] as number) << n
      n += copyLengths[k] as number
    }
  }

  const { suffixBits, suffixLengths } = plan
  for (let k = 0; k < suffixBits.length; k++) {
    while (n >= 8) {
      out[pos++] = acc & 0xff
      acc >>= 8
      n -= 8
    }
    acc |= (suffixBits[k] as number) << n
    n += suffixLengths[k] as number
  }
  for (; n > 0; n -= 8) {
    out[pos++] = acc & 0xff
    acc >>= 8
  }
  b = (b + plan.suffixCount * a + plan.suffixWeighted) % ADLER_MOD
  a = (a + plan.suffixSum) % ADLER_MOD
  pos = out.writeUInt32BE(((b << 16) | a) >>> 0, pos)

  out.writeUInt32BE(pos - IDAT_AT - 8, IDAT_AT)
  pos = out.writeUInt32BE(crc32(out.subarray(IDAT_AT + 4, pos)), pos)
  out.set(IEND, pos)
  return out.subarray(0, pos + IEND.length)
}

/** A module: 1 dark, 0 light. */
const d = (data: Uint8Array, i: number): number => data[i] as number

function planFor(size: number): Plan {
  let plan = plans.get(size)
  if (plan === undefined) {
    plan = makePlan(size)
    plans.set(size, plan)
  }
  return plan
}

function makePlan(size: number): Plan {
  const side = (size + 2 * QUIET) * SCALE
  const lineBytes = 1 + ((side + 7) >> 3)
  const quietLines = QUIET * SCALE

  // The matches of the image, each with how often it occurs: the copies after each module row's first scanline
  // (distance: a scanline), and in each quiet zone a run of light bytes then the copies of that scanline.
  type Match = { length: number; distance: number }
  const copies: Match[] = matchLengths((SCALE - 1) * lineBytes).map((length) => ({ length, distance: lineBytes }))
  const quiet: Match[] = [
    ...matchLengths(lineBytes - 2).map((length) => ({ length, distance: 1 })),
    ...matchLengths((quietLines - 1) * lineBytes).map((length) => ({ length, distance: lineBytes })),
  ]

  // Expected symbol counts: every scanline byte's possible values, from the modules it covers taken as dark or
  // light with even odds (a QR symbol's data is masked to look random), weighted as many times as there are rows.
  const litFreqs = new Array<number>(286).fill(0)
  const distFreqs = new Array<number>(30).fill(0)
  for (const [value, odds] of lineByteOdds(size, side)) litFreqs[value] = (litFreqs[value] as number) + odds * size
  litFreqs[0] = (litFreqs[0] as number) + size + 2 // filter bytes
  litFreqs[0xff] = (litFreqs[0xff] as number) + 2
  litFreqs[END_OF_BLOCK] = 1
  const count = (matches: Match[], times: number): void => {
    for (const m of matches) {
      const l = lengthCode(m.length).symbol
      const d = distanceCode(m.distance).symbol
      litFreqs[l] = (litFreqs[l] as number) + times
      distFreqs[d] = (distFreqs[d] as number) + times
    }
  }
  count(copies, size)
  count(quiet, 2)
  // at most 8 bits a literal: a group's bytes 0–2 then fit one 24-bit run
  const litLengths = codeLengths(litFreqs, 8)
  const distLengths = codeLengths(distFreqs, 15)
  const litCodes = canonicalCodes(litLengths)
  const distCodes = canonicalCodes(distLengths)

  const putLiteral = (sink: BitSink, value: number): void =>
    sink.put(litCodes[value] as number, litLengths[value] as number)
  const putMatches = (sink: BitSink, matches: Match[]): void => {
    for (const m of matches) {
      const l = lengthCode(m.length)
      const d = distanceCode(m.distance)
      // a code and its extra bits as one run
      const lCode = litLengths[l.symbol] as number
      const dCode = distLengths[d.symbol] as number
      sink.put((litCodes[l.symbol] as number) | (l.extra << lCode), lCode + l.extraLength)
      sink.put((distCodes[d.symbol] as number) | (d.extra << dCode), dCode + d.extraLength)
    }
  }

  const ihdr = Buffer.alloc(17)
  ihdr.write('IHDR', 0, 'latin1')
  ihdr.writeUInt32BE(side, 4)
  ihdr.writeUInt32BE(side, 8)
  ihdr[12] = 1 // bit depth
  // colour type 0 (grayscale), compression 0 (deflate), filter method 0, interlace 0: already zero
  const head = new BitSink()
  writeDynamicHeader(head, litLengths, distLengths)
  putLiteral(head, 0) // the top quiet zone: a light scanline, copied
  putLiteral(head, 0xff)
  putMatches(head, quiet)
  putLiteral(head, 0) // the first row's filter byte
  const packed = head.pack()
  const prefix = Buffer.concat([
    Buffer.from(PNG_SIGNATURE),
    Buffer.from([0, 0, 0, 13]),
    ihdr,
    uint32(crc32(ihdr)),
    Buffer.from([0, 0, 0, 0]), // IDAT length: written last
    Buffer.from('IDAT', 'latin1'),
    Buffer.from([0x78, 0x01]), // zlib header: deflate, 32 KiB window, check bits (RFC 1950)
    packed.bytes,
  ])

  const runs = (sink: BitSink) => {
    // modulesPng adds a run to at most 7 pending bits in a 32-bit integer
    if (sink.runs.some((r) => r.length > 24)) throw new Error(`QR PNG: a bit run over 24 bits (size ${size})`)
    return {
      bits: Int32Array.from(sink.runs, (r) => r.bits),
      lengths: Uint8Array.from(sink.runs, (r) => r.length),
    }
  }
  const copySink = new BitSink()
  putMatches(copySink, copies)
  putLiteral(copySink, 0) // the filter byte of the next scanline: the next row's or the bottom quiet zone's
  const copy = runs(copySink)
  const tail = new BitSink()
  putLiteral(tail, 0xff) // the rest of the bottom quiet zone
  putMatches(tail, quiet)
  putLiteral(tail, END_OF_BLOCK)
  const suffix = runs(tail)

  // the quiet zone's scanlines: filter 0 and light pixels
  const quietBytes = new Uint8Array(quietLines * lineBytes).fill(0xff)
  for (let i = 0; i < quietBytes.length; i += lineBytes) quietBytes[i] = 0
  let adlerA = 1
  let adlerB = 0
  let suffixSum = 0
  let suffixWeighted = 0
  quietBytes.forEach((byte, i) => {
    adlerA = (adlerA + byte) % ADLER_MOD
    adlerB = (adlerB + adlerA) % ADLER_MOD
    suffixSum = (suffixSum + byte) % ADLER_MOD
    suffixWeighted = (suffixWeighted + (quietBytes.length - i) * byte) % ADLER_MOD
  })

  // a group's codes as two runs, bytes 0–2 and 3–4
  const groups = (size + 2 * QUIET) >> 3
  const lastBytes = lineBytes - 1 - 5 * groups
  if (lastBytes <= 0 || lastBytes > 5) throw new Error(`QR PNG: a row of ${size} modules ends in ${lastBytes} bytes`)
  const lowBits = new Int32Array(256)
  const lowLengths = new Uint8Array(256)
  const highBits = new Int32Array(256)
  const highLengths = new Uint8Array(256)
  for (let key = 0; key < 256; key++) {
    for (let i = 0; i < 5; i++) {
      const byte = GROUP_BYTES[key * 5 + i] as number
      const length = litLengths[byte] as number
      if (length === 0) throw new Error(`QR PNG: no code for byte ${byte} (size ${size})`)
      const [bits, lengths] = i < 3 ? [lowBits, lowLengths] : [highBits, highLengths]
      bits[key] = (bits[key] as number) | ((litCodes[byte] as number) << (lengths[key] as number))
      lengths[key] = (lengths[key] as number) + length
    }
  }

  const sum = (xs: Uint8Array) => xs.reduce((s, x) => s + x, 0)
  const bits = packed.tailLength + size * ((lineBytes - 1) * 8 + sum(copy.lengths)) + sum(suffix.lengths)
  return {
    lineBytes,
    groups,
    lastBytes,
    lowBits,
    lowLengths,
    highBits,
    highLengths,
    codes: litCodes.slice(0, 256),
    lengths: litLengths.slice(0, 256),
    prefix,
    prefixTail: packed.tail,
    prefixTailLength: packed.tailLength,
    adlerA,
    adlerB,
    copyBits: copy.bits,
    copyLengths: copy.lengths,
    suffixBits: suffix.bits,
    suffixLengths: suffix.lengths,
    suffixCount: quietBytes.length,
    suffixSum,
    suffixWeighted,
    maxBytes: prefix.length + Math.ceil(bits / 8) + 4 + 4 + IEND.length,
  }
}

/**
 * The values the bytes of a module row's scanline (after its filter byte) can take, each with its expected count
 * per row when every module is dark or light with even odds: a byte covers 8 pixels, so two or three modules.
 */
function lineByteOdds(size: number, side: number): Map<number, number> {
  const odds = new Map<number, number>()
  for (let x0 = 0; x0 < side; x0 += 8) {
    let light = 0 // pixels light whatever the modules: quiet zone and padding
    const masks = new Map<number, number>() // module → its pixels in this byte
    for (let bit = 0; bit < 8; bit++) {
      const x = x0 + bit
      const module = Math.floor(x / SCALE) - QUIET
      const pixel = 0x80 >> bit
      if (x >= side || module < 0 || module >= size) light |= pixel
      else masks.set(module, (masks.get(module) ?? 0) | pixel)
    }
    const each = [...masks.values()]
    for (let combo = 0; combo < 1 << each.length; combo++) {
      let value = light
      each.forEach((mask, i) => {
        if ((combo >> i) & 1) value |= mask
      })
      odds.set(value, (odds.get(value) ?? 0) + 1 / (1 << each.length))
    }
  }
  return odds
}

function uint32(value: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(value >>> 0)
  return b
}
