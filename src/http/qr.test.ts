import fc from 'fast-check'
import jsQRModule from 'jsqr'
import { PNG } from 'pngjs'
import QRCode from 'qrcode'
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { crc32, inflateSync } from 'node:zlib'
import { qrDataUri, qrPng } from './qr.js'

// jsqr is CommonJS typed with `export default`; under NodeNext the default import is module.exports,
// whose `.default` the bundle points back at the function itself.
const jsQR = jsQRModule.default

// Decoding with an independent reader (pngjs for the container, jsQR for the symbol) checks what a
// phone would see, not just that our bytes match what we think we wrote.
function decode(png: Buffer): string | undefined {
  const image = PNG.sync.read(png) // verifies every chunk CRC and the zlib stream
  const pixels = new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length)
  return jsQR(pixels, image.width, image.height, { inversionAttempts: 'dontInvert' })?.data
}

const QR_OPTIONS = { errorCorrectionLevel: 'M', maskPattern: 0 } as const

/** The pixels of qrPng(text) that differ from its QR matrix (5 px a module, 4 light modules around). */
function wrongPixels(text: string): number {
  const matrix = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], QR_OPTIONS).modules
  const image = PNG.sync.read(qrPng(text))
  let wrong = 0
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const r = Math.floor(y / 5) - 4
      const c = Math.floor(x / 5) - 4
      const inside = r >= 0 && c >= 0 && r < matrix.size && c < matrix.size
      const dark = inside && matrix.get(r, c) === 1
      if (image.data[(y * image.width + x) * 4] !== (dark ? 0 : 255)) wrong += 1
    }
  }
  return wrong
}

const PAY_URL = 'http://localhost:8080/pay/3f2b9c1e-8a47-4d2e-9b61-0c5e7a2d4f18'
const LONG_URL =
  'https://checkout.merchant.example.com/pay/inv_01HZX3K9Q7W2M4N8P6R5T1V0YB?' +
  ['locale=ru', 'return_url=https%3A%2F%2Fshop.example.org%2Forders%2F123456%2Fthank-you%3Fsource%3Dqr']
    .concat(Array.from({ length: 5 }, (_, i) => `item_${i}=sku-${String(i).padStart(6, '0')}-blue-xl`))
    .join('&')

describe('qrPng', () => {
  it('when given a typical pay URL, then a scanner reads back exactly that URL', () => {
    expect(decode(qrPng(PAY_URL))).toBe(PAY_URL)
  })

  it('when given a ~300-character https URL, then a scanner reads back exactly that URL', () => {
    expect(LONG_URL.length).toBeGreaterThanOrEqual(280)
    expect(LONG_URL.length).toBeLessThanOrEqual(330)
    expect(decode(qrPng(LONG_URL))).toBe(LONG_URL)
  })

  it.each([
    ['Cyrillic', 'Счёт №42 — оплатить 1 500,00 ₽'],
    ['CJK and emoji', '請求書 💳 お支払い 🇯🇵'],
    ['digits only (numeric mode)', '00420012345678901234567890'],
    ['upper-case alphanumeric mode', 'HTTP://LOCALHOST:8080/PAY/ABC-123'],
  ])('when given %s text, then a scanner reads back exactly that text', (_name, text) => {
    expect(decode(qrPng(text))).toBe(text)
  })

  it('produces a valid 1-bit grayscale PNG of (modules + 2×4 quiet zone) × 5 px, light around the symbol', () => {
    const png = qrPng(PAY_URL)
    const size = QRCode.create(PAY_URL, { errorCorrectionLevel: 'M' }).modules.size
    const image = PNG.sync.read(png)

    expect(image.width).toBe((size + 8) * 5)
    expect(image.height).toBe((size + 8) * 5)
    // IHDR sits right after the 8-byte signature and the 8-byte chunk header.
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR')
    expect(png[24]).toBe(1) // bit depth
    expect(png[25]).toBe(0) // colour type: grayscale

    const gray = (x: number, y: number): number | undefined => image.data[(y * image.width + x) * 4]
    // Quiet zone corners are white; the first pixel inside it is the dark corner of a finder pattern.
    expect(gray(0, 0)).toBe(255)
    expect(gray(image.width - 1, image.height - 1)).toBe(255)
    expect(gray(4 * 5 - 1, 4 * 5 - 1)).toBe(255)
    expect(gray(4 * 5, 4 * 5)).toBe(0)
  })

  it('when decoded, then every pixel is its module: dark exactly where the QR matrix is, light in the quiet zone', () => {
    for (const text of [PAY_URL, LONG_URL]) expect(wrongPixels(text)).toBe(0)
  })

  // A pay URL is PUBLIC_URL (any length) + /pay/ + a UUID: from 49 characters (`http://a`), versions 4 to 40. The
  // shorter texts of versions 1–3 come from other callers of qrPng. The PNG's zlib stream and CRCs are written by
  // qr-png.ts, so each version's image is checked by zlib, by pngjs (CRCs) and by a scanner.
  const versionOf = (text: string) => QRCode.create([{ data: Buffer.from(text), mode: 'byte' }], QR_OPTIONS).version
  it.each(Array.from({ length: 40 }, (_, i) => i + 1))(
    'when the text fills version %i, then the PNG is valid and a scanner reads back exactly that text',
    (version) => {
      // the longest text of this version (byte mode, level M), pay-URL-shaped from 50 characters
      let lo = 1
      let hi = 2331
      const text = (length: number) =>
        length < 50
          ? 'p'.repeat(length)
          : `https://${'shop-'.repeat(500).slice(0, length - 50)}x/pay/0197a5d0-7c1a-7def-8abc-1234567890ab`
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1
        if (versionOf(text(mid)) <= version) lo = mid
        else hi = mid - 1
      }
      const longest = text(lo)
      expect(versionOf(longest)).toBe(version)

      const png = qrPng(longest)
      for (let at = 8; at < png.length;) {
        const length = png.readUInt32BE(at)
        expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(png.subarray(at + 4, at + 8 + length)))
        if (png.toString('latin1', at + 4, at + 8) === 'IDAT') inflateSync(png.subarray(at + 8, at + 8 + length))
        at += 12 + length
      }
      expect(decode(png)).toBe(longest)
      expect(wrongPixels(longest)).toBe(0)
    },
  )

  it('for any URL-like string, a scanner reads back exactly the input', () => {
    const urls = fc.oneof(
      fc.uuid().map((id) => `http://localhost:8080/pay/${id}`),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
    )
    fc.assert(
      fc.property(urls, (url) => {
        expect(decode(qrPng(url))).toBe(url)
      }),
      { numRuns: 150 },
    )
  })
})

describe("qrcode's Reed–Solomon generator polynomials", () => {
  const require = createRequire(import.meta.url)
  type Poly = { generateECPolynomial: (d: number) => Uint8Array; mul: (a: Uint8Array, b: Uint8Array) => Uint8Array }
  const polynomial = require('qrcode/lib/core/polynomial.js') as Poly
  const gf = require('qrcode/lib/core/galois-field.js') as { exp: (n: number) => number }

  it('are made once per degree by qr.ts, and equal to the product of (x − αⁱ) qrcode makes', () => {
    // every degree a QR block has, versions 1–40 and levels L–H
    for (const degree of [7, 10, 13, 15, 16, 17, 18, 20, 22, 24, 26, 28, 30]) {
      let expected: Uint8Array = Uint8Array.of(1)
      for (let i = 0; i < degree; i++) expected = polynomial.mul(expected, Uint8Array.of(1, gf.exp(i)))
      const made = polynomial.generateECPolynomial(degree)
      expect([...made]).toEqual([...expected])
      expect(polynomial.generateECPolynomial(degree)).toBe(made)
    }
  })
})

describe('qrDataUri', () => {
  it('wraps the same PNG as a base64 data URI', () => {
    const uri = qrDataUri(PAY_URL)
    const prefix = 'data:image/png;base64,'
    expect(uri.startsWith(prefix)).toBe(true)
    const png = Buffer.from(uri.slice(prefix.length), 'base64')
    expect(png.equals(qrPng(PAY_URL))).toBe(true)
    expect(decode(png)).toBe(PAY_URL)
  })
})
