import jsQRModule from 'jsqr'
import { PNG } from 'pngjs'

// jsqr is CommonJS with `exports.default`; under NodeNext the default import is the module object.
type JsQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null
const jsQR: JsQr = ((jsQRModule as unknown as { default?: JsQr }).default ?? jsQRModule) as unknown as JsQr

/** Decodes a QR code PNG the way a phone would read the picture; undefined when no code is found. */
export function decodeQrPng(png: Buffer): string | undefined {
  const img = PNG.sync.read(png)
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data
}
