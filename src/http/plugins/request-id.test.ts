import { describe, expect, it } from 'vitest'
import { loggableUrl } from './request-id.js'

const KEY = 'mk_0aO3N30vTump1TDg8y29kXGbt1okbrUuc4lCtE6VmrM'

describe('loggableUrl (the access log never holds a key or secret a client put in the URL)', () => {
  it.each([
    [`/x?api_key=${KEY}`, '/x?api_key=mk_[redacted]'],
    [`/x?k=mk%5F${KEY.slice(3)}`, '/x?k=mk_[redacted]'],
    [`/x?k=%6D%6b%5f${KEY.slice(3)}`, '/x?k=mk_[redacted]'],
    ['/x?s=whsec%5FRckF6tf26jcMx2wRcd1Zn%2BM%2F2PJAGk%3D', '/x?s=whsec_[redacted]'],
  ])('when the URL is %s, then it is logged as %s', (url, logged) => {
    expect(loggableUrl(url)).toBe(logged)
  })

  it('when the URL holds no credential, then it is logged as it came, percent-encoding included', () => {
    expect(loggableUrl('/api/invoice/getInfo?order_id=A%2FB%20c&x=%41')).toBe('/api/invoice/getInfo?order_id=A%2FB%20c&x=A')
    expect(loggableUrl('/pay/abc')).toBe('/pay/abc')
  })
})
