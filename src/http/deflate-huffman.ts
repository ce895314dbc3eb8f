// The parts of a DEFLATE stream (RFC 1951) that qr-png.ts fixes once per QR size: Huffman code lengths from
// expected symbol frequencies, their canonical codes, the length and distance codes of a match, and the header of a
// block with dynamic Huffman codes. Nothing here runs per image.

/** A run of bits to write LSB first: `bits` holds `length` (≤ 24) bits, already in stream order. */
export interface BitRun {
  readonly bits: number
  readonly length: number
}

/** Collects bit runs and packs them LSB first into bytes, as DEFLATE does (RFC 1951 §3.1.1). */
export class BitSink {
  readonly runs: BitRun[] = []

  put(bits: number, length: number): void {
    if (length > 0) this.runs.push({ bits, length })
  }

  /** The runs packed from bit 0: the whole bytes, and the bits of an unfinished last byte. */
  pack(): { bytes: Uint8Array; tail: number; tailLength: number } {
    const out: number[] = []
    let acc = 0
    let n = 0
    for (const r of this.runs) {
      acc |= r.bits << n
      n += r.length
      while (n >= 8) {
        out.push(acc & 0xff)
        acc >>>= 8
        n -= 8
      }
    }
    return { bytes: Uint8Array.from(out), tail: acc, tailLength: n }
  }
}

/**
 * Huffman code lengths for `freqs` (0: symbol unused), none longer than `maxLength`. Too deep a tree is flattened by
 * raising every used frequency and building again, which keeps the order of the lengths.
 */
export function codeLengths(freqs: readonly number[], maxLength: number): Uint8Array {
  const used = freqs.flatMap((f, symbol) => (f > 0 ? [symbol] : []))
  const lengths = new Uint8Array(freqs.length)
  if (used.length === 1) lengths[used[0] as number] = 1 // one code still takes one bit (RFC 1951 §3.2.7)
  if (used.length <= 1) return lengths
  let weights = used.map((s) => freqs[s] as number)
  for (;;) {
    const depths = treeDepths(weights)
    if (Math.max(...depths) <= maxLength) {
      used.forEach((s, i) => (lengths[s] = depths[i] as number))
      return lengths
    }
    const total = weights.reduce((a, b) => a + b, 0)
    weights = weights.map((w) => w + total / 2 ** (maxLength - 1))
  }
}

/** The depth of each leaf in a Huffman tree of `weights` (two lightest merged first; few symbols, so O(n²)). */
function treeDepths(weights: readonly number[]): number[] {
  const depths = weights.map(() => 0)
  let nodes = weights.map((w, i) => ({ w, leaves: [i] }))
  while (nodes.length > 1) {
    nodes.sort((a, b) => a.w - b.w)
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    for (const leaf of [...a.leaves, ...b.leaves]) depths[leaf] = (depths[leaf] as number) + 1
    nodes = [{ w: a.w + b.w, leaves: [...a.leaves, ...b.leaves] }, ...nodes.slice(2)]
  }
  return depths
}

/** The canonical codes of `lengths` (RFC 1951 §3.2.2), bit-reversed to be written LSB first. */
export function canonicalCodes(lengths: Uint8Array): Uint16Array {
  const count = new Uint16Array(16)
  for (const l of lengths) if (l > 0) count[l] = (count[l] as number) + 1
  const next = new Uint16Array(16)
  for (let bits = 1, code = 0; bits < 16; bits++) {
    code = (code + (count[bits - 1] as number)) << 1
    next[bits] = code
  }
  const codes = new Uint16Array(lengths.length)
  lengths.forEach((l, symbol) => {
    if (l === 0) return
    const code = next[l] as number
    next[l] = code + 1
    let reversed = 0
    for (let i = 0; i < l; i++) reversed |= ((code >> i) & 1) << (l - 1 - i)
    codes[symbol] = reversed
  })
  return codes
}

const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
]
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
]
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

/** A match length (3–258) as its literal/length symbol (257–285) and extra bits. */
export function lengthCode(length: number): { symbol: number; extra: number; extraLength: number } {
  let i = LENGTH_BASE.length - 1
  while ((LENGTH_BASE[i] as number) > length) i--
  return { symbol: 257 + i, extra: length - (LENGTH_BASE[i] as number), extraLength: LENGTH_EXTRA[i] as number }
}

/** A match distance (1–32768) as its distance symbol (0–29) and extra bits. */
export function distanceCode(distance: number): { symbol: number; extra: number; extraLength: number } {
  let i = DIST_BASE.length - 1
  while ((DIST_BASE[i] as number) > distance) i--
  return { symbol: i, extra: distance - (DIST_BASE[i] as number), extraLength: DIST_EXTRA[i] as number }
}

/** Splits a copy of `total` bytes (≥ 3) into matches of 3–258 bytes. */
export function matchLengths(total: number): number[] {
  const out: number[] = []
  for (let left = total; left > 0;) {
    const take = left <= 258 ? left : left - 258 < 3 ? left - 3 : 258
    out.push(take)
    left -= take
  }
  return out
}

/** The order the code length code lengths are written in (RFC 1951 §3.2.7). */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

/**
 * Writes the header of a final block with dynamic Huffman codes (RFC 1951 §3.2.7): BFINAL, BTYPE, the sizes, and
 * the code lengths of both alphabets, run-length coded with symbols 16–18 and themselves Huffman coded.
 */
export function writeDynamicHeader(sink: BitSink, litLengths: Uint8Array, distLengths: Uint8Array): void {
  let nlit = 286
  while (nlit > 257 && litLengths[nlit - 1] === 0) nlit--
  let ndist = 30
  while (ndist > 1 && distLengths[ndist - 1] === 0) ndist--
  const all = [...litLengths.subarray(0, nlit), ...distLengths.subarray(0, ndist)]

  // run-length coding of the lengths: [symbol, extra bits, extra length]
  const rle: [number, number, number][] = []
  for (let i = 0; i < all.length;) {
    const v = all[i] as number
    let run = 1
    while (i + run < all.length && all[i + run] === v) run++
    i += run
    if (v === 0) {
      while (run >= 11) {
        const n = Math.min(run, 138)
        rle.push([18, n - 11, 7])
        run -= n
      }
      if (run >= 3) {
        rle.push([17, run - 3, 3])
        run = 0
      }
    } else {
      rle.push([v, 0, 0])
      run--
      while (run >= 3) {
        const n = Math.min(run, 6)
        rle.push([16, n - 3, 2])
        run -= n
      }
    }
    for (; run > 0; run--) rle.push([v, 0, 0])
  }

  const freqs = new Array<number>(19).fill(0)
  for (const [s] of rle) freqs[s] = (freqs[s] as number) + 1
  const clLengths = codeLengths(freqs, 7)
  const clCodes = canonicalCodes(clLengths)
  let nclen = 19
  while (nclen > 4 && clLengths[CODE_LENGTH_ORDER[nclen - 1] as number] === 0) nclen--

  sink.put(1, 1) // BFINAL: the only block
  sink.put(2, 2) // BTYPE 10: dynamic Huffman codes
  sink.put(nlit - 257, 5)
  sink.put(ndist - 1, 5)
  sink.put(nclen - 4, 4)
  for (let i = 0; i < nclen; i++) sink.put(clLengths[CODE_LENGTH_ORDER[i] as number] as number, 3)
  for (const [s, extra, extraLength] of rle) {
    sink.put(clCodes[s] as number, clLengths[s] as number)
    sink.put(extra, extraLength)
  }
}
