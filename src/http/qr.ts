// QR codes for the create-invoice response and the payment page.
//
// `qrcode` stays the encoder (docs/architecture.md#libraries: no hand-written QR encoding), but its PNG writer
// (toBuffer/toDataURL) costs several ms per image on the event loop: it renders RGBA pixels through pngjs.
// The create-invoice endpoint returns a QR per request at thousands of requests/s, so we take only the
// module matrix from `qrcode` and serialize it ourselves as a 1-bit grayscale PNG: one bit per pixel,
// one scanline per module row copied `SCALE` times, and a fast deflate over a few kilobytes.
// Measured for a pay URL: matrix → PNG ≈ 25 µs. QRCode.create's defaults cost another ≈ 0.4 ms: about half
// in the segment optimiser (a shortest-path search over mixed modes, pointless for URLs, which are bytes
// anyway) and half in scoring all 8 masks. We pass one byte segment and a fixed mask: ≈ 30 µs. Every mask is
// valid per ISO/IEC 18004 and decodes the same; the score only nudges readability, and the tests decode
// every code we render.
import { crc32, deflateSync } from 'node:zlib'
import QRCode, { type BitMatrix } from 'qrcode'

/** Pixels per module: a typical pay URL (version 4, 33 modules) becomes 205 px, readable on a phone screen. */
const SCALE = 5
/** The QR spec requires 4 light modules around the symbol; scanners fail more often without them. */
const QUIET = 4

// Level 1: measured on a pay URL (5.5 kB raw), 18 µs → 521 B versus 36 µs → 430 B at level 6 and 57 µs at 9;
// ~90 bytes per response is cheaper than doubling the deflate time. Z_RLE was larger (2 kB), and a smaller
// window/memLevel saved nothing measurable.
const DEFLATE_OPTIONS = { level: 1 }

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const IEND = chunk('IEND', Buffer.alloc(0))

const QR_OPTIONS = { errorCorrectionLevel: 'M', maskPattern: 0 } as const

/** Renders `text` (UTF-8, byte mode) as a QR code (error correction M) in a grayscale 1-bit PNG. */
export function qrPng(text: string): Buffer {
  return encodePng(QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], QR_OPTIONS).modules)
}

/** The QR code as a `data:` URI, the form the create-invoice response and the payment page embed. */
export function qrDataUri(text: string): string {
  return `data:image/png;base64,${qrPng(text).toString('base64')}`
}

function encodePng(modules: BitMatrix): Buffer {
  const size = modules.size
  const data = modules.data
  const side = (size + 2 * QUIET) * SCALE
  // Each scanline is a filter-type byte followed by the packed bits. Every module row (quiet rows included) is
  // SCALE identical scanlines: the first is written out (filter 0, None) and the other SCALE-1 say "same as the
  // line above" (filter 2, Up, with all-zero bytes). Zeros cost deflate less than repeats it has to find: the PNG
  // of a pay URL is 8 % smaller (541 B against 585) and ≈ 43 µs against 45–54 µs to make, QR matrix included.
  // The other filters exist for photographs; on a 2-colour image they only cost time.
  const lineBytes = 1 + ((side + 7) >> 3)
  const raw = Buffer.alloc(lineBytes * side) // zero: the Up lines are done
  for (let y = 0; y < side; y += SCALE) {
    // In 1-bit grayscale a 1 is white: the quiet zone and the row's padding bits are light, and only dark
    // modules have to be written. The filter byte stays 0 (None).
    raw.fill(0xff, y * lineBytes + 1, (y + 1) * lineBytes)
    for (let k = 1; k < SCALE; k++) raw[(y + k) * lineBytes] = 2
  }

  // A dark module clears SCALE consecutive bits of its row's first scanline, in one byte or straddling two: each
  // column's bytes and masks come from a table made once per symbol size. The pixels of a pay URL's code take
  // 4.1 µs so, against 6.0 µs bit by bit (of a whole image's ≈ 36 µs).
  const { byteOf, maskOf, carryMaskOf } = columnMasks(size)
  for (let r = 0; r < size; r++) {
    const first = (QUIET + r) * SCALE * lineBytes + 1
    const rowBase = r * size
    for (let c = 0; c < size; c++) {
      if (data[rowBase + c] === 0) continue
      const i = first + (byteOf[c] as number)
      raw[i] = (raw[i] as number) & ~(maskOf[c] as number)
      const carry = carryMaskOf[c] as number
      if (carry !== 0) raw[i + 1] = (raw[i + 1] as number) & ~carry
    }
  }

  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(side, 0)
  ihdr.writeUInt32BE(side, 4)
  ihdr[8] = 1 // bit depth
  ihdr[9] = 0 // colour type: grayscale
  // bytes 10-12: compression 0 (deflate), filter method 0, interlace 0 (none) — already zero
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, DEFLATE_OPTIONS)), IEND])
}

interface ColumnMasks {
  /** The byte of a scanline (after its filter byte) where module column c's pixels start. */
  readonly byteOf: Uint16Array
  /** The bits of that byte that are column c's pixels. */
  readonly maskOf: Uint8Array
  /** The bits of the next byte that are column c's, when its pixels straddle two bytes; else 0. */
  readonly carryMaskOf: Uint8Array
}

const columnMasksBySize = new Map<number, ColumnMasks>()

/** The scanline bytes and bits of each module column of a symbol `size` modules wide (versions 1–40: 40 tables). */
function columnMasks(size: number): ColumnMasks {
  let masks = columnMasksBySize.get(size)
  if (masks !== undefined) return masks
  masks = { byteOf: new Uint16Array(size), maskOf: new Uint8Array(size), carryMaskOf: new Uint8Array(size) }
  for (let c = 0; c < size; c++) {
    const x0 = (QUIET + c) * SCALE
    const byte = x0 >> 3
    masks.byteOf[c] = byte
    for (let x = x0; x < x0 + SCALE; x++) {
      const bit = 0x80 >> (x & 7)
      if (x >> 3 === byte) masks.maskOf[c] = (masks.maskOf[c] as number) | bit
      else masks.carryMaskOf[c] = (masks.carryMaskOf[c] as number) | bit
    }
  }
  columnMasksBySize.set(size, masks)
  return masks
}

/** length | type | data | CRC-32 over type and data (PNG spec §5.3). */
function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(12 + body.length)
  out.writeUInt32BE(body.length, 0)
  out.write(type, 4, 'latin1')
  body.copy(out, 8)
  // zlib.crc32 is native since Node 20.15 (engines: >=20.19), so no hand-rolled CRC table is needed.
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length)
  return out
}
