// QR codes for the create-invoice response and the payment page.
//
// `qrcode` stays the encoder (docs/architecture.md#libraries: no hand-written QR encoding), but its PNG writer
// (toBuffer/toDataURL) costs several ms per image on the event loop: it renders RGBA pixels through pngjs.
// The create-invoice endpoint returns a QR per request at thousands of requests/s, so we take only the
// module matrix from `qrcode` and write it ourselves as a 1-bit grayscale PNG (qr-png.ts).
// QRCode.create's defaults spend most of their time in the segment optimiser (a shortest-path search over mixed
// modes, pointless for URLs, which are bytes anyway) and in scoring all 8 masks. We pass one byte segment and a
// fixed mask: every mask is valid per ISO/IEC 18004 and decodes the same; the score only nudges readability, and
// the tests decode every code we render.
import { createRequire } from 'node:module'
import QRCode from 'qrcode'
import { modulesPng } from './qr-png.js'

// qrcode makes the Reed–Solomon generator polynomial of the symbol's block size again for every code (its
// ReedSolomonEncoder calls polynomial.js generateECPolynomial), though it depends on that size alone: 13 degrees
// exist in all versions and levels. Made once per degree and kept, by replacing the function on qrcode's module
// object, through which the encoder calls it; the encoder only reads the polynomial. Should a qrcode release move
// that function, this does nothing and codes are made as before (qr.test.ts checks that the cache is in place).
cacheGeneratorPolynomials()

function cacheGeneratorPolynomials(): void {
  let polynomial: { generateECPolynomial?: unknown }
  try {
    polynomial = createRequire(import.meta.url)('qrcode/lib/core/polynomial.js') as typeof polynomial
  } catch {
    return
  }
  const generate = polynomial.generateECPolynomial
  if (typeof generate !== 'function') return
  const made = new Map<number, Uint8Array>()
  polynomial.generateECPolynomial = (degree: number): Uint8Array => {
    let p = made.get(degree)
    if (p === undefined) {
      p = generate(degree) as Uint8Array
      made.set(degree, p)
    }
    return p
  }
}

const QR_OPTIONS = { errorCorrectionLevel: 'M', maskPattern: 0 } as const

function render(text: string): Buffer {
  const { size, data } = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], QR_OPTIONS).modules
  return modulesPng(size, data)
}

/** Renders `text` (UTF-8, byte mode) as a QR code (error correction M) in a grayscale 1-bit PNG. */
export function qrPng(text: string): Buffer {
  return Buffer.from(render(text))
}

/** The QR code as a `data:` URI, the form the create-invoice response and the payment page embed. */
export function qrDataUri(text: string): string {
  return `data:image/png;base64,${render(text).toString('base64')}`
}
