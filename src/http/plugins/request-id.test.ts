import { describe, expect, it } from 'vitest'
import type { IncomingMessage } from 'node:http'
import { loggableUrl, requestIdOf } from './request-id.js'

const KEY = 'mk_0aO3N30vTump1TDg8y29kXGbt1okbrUuc4lCtE6VmrM'

describe('loggableUrl (the access log never holds a key or secret a client put in the URL)', () => {
  it.each([
    [`/x?api_key=${KEY}`, '/x?api_key=mk_[redacted]'],
    [`/x?k=mk%5F${KEY.slice(3)}`, '/x?k=mk_[redacted]'],
    [`/x?k=%6D%6b%5f${KEY.slice(3)}`, '/x?k=mk_[redacted]'],
    ['/x?s=whsec%5FRckF6tf26jcMx2wRcd1Zn%2BM%2F2PJAGk%3D', '/x?s=whsec_[redacted]'],
    [
      '/api/admin/v1/merchants?token=adm_Vb3kQm0aO3N30vTump1TDg8y29kXGbt1okbrUuc4lC',
      '/api/admin/v1/merchants?token=adm_[redacted]',
    ],
    ['/dashboard/invite/q7Hk2vTn0bW9cXs4rLmPz1aYdE6fGj3uKi8oNh5wQtM?lang=ru', '/dashboard/invite/[redacted]?lang=ru'],
  ])('when the URL is %s, then it is logged as %s', (url, logged) => {
    expect(loggableUrl(url)).toBe(logged)
  })

  it('when the URL holds no credential, then it is logged as it came, percent-encoding included', () => {
    expect(loggableUrl('/api/invoice/getInfo?order_id=A%2FB%20c&x=%41')).toBe(
      '/api/invoice/getInfo?order_id=A%2FB%20c&x=A',
    )
    expect(loggableUrl('/pay/abc')).toBe('/pay/abc')
  })
})

describe('requestIdOf (a client id is echoed and logged: never a credential)', () => {
  const idOf = (given: string) => requestIdOf({ headers: { 'x-request-id': given } } as unknown as IncomingMessage)
  it('when the client sends a plain token, then it is the request id', () => {
    expect(idOf('shop-42.retry:3')).toBe('shop-42.retry:3')
    expect(idOf('0193a1b2-7d4e-7c3a-9f10-5b2e8c4d1a01')).toBe('0193a1b2-7d4e-7c3a-9f10-5b2e8c4d1a01')
  })
  it.each([KEY, `x-${KEY}`, 'MK_abc', 'whsec_abc', 'adm_abc', 'a'.repeat(64), 'ABCDEF0123456789'.repeat(4)])(
    'when the client sends %s, then a new id is made instead',
    (given) => {
      const id = idOf(given)
      expect(id).not.toBe(given)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    },
  )
})
