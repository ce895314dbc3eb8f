import { describe, expect, it } from 'vitest'
import { attemptError } from './webhook-request.js'

const answered = (statusCode: number) =>
  attemptError({ statusCode, latencyMs: 1, error: null, failure: null, aborted: false })

describe('attemptError (the delivery log)', () => {
  it('when the receiver redirects, then the log says redirects are not followed; a 304 is no redirect', () => {
    expect([301, 302, 307, 308].map(answered)).toEqual(
      [301, 302, 307, 308].map((c) => `HTTP ${c}: redirects are not followed`),
    )
    expect(answered(304)).toBe('HTTP 304')
    expect(answered(204)).toBeNull()
    expect(answered(500)).toBe('HTTP 500')
  })
})
