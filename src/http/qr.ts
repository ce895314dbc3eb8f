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
import QRCode from 'qrcode'
import { modulesPng } from './qr-png.js'

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
