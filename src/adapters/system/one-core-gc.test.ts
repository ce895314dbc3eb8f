import { describe, expect, it } from 'vitest'
import { oneCoreGcAdvice } from './one-core-gc.js'

describe('the one-core GC advice logged at start', () => {
  it('when the process has one core and Node runs without --single-threaded-gc, then it advises the flag', () => {
    expect(oneCoreGcAdvice(1, [])).toContain('--single-threaded-gc')
    expect(oneCoreGcAdvice(1, ['--enable-source-maps'])).toContain('--single-threaded-gc')
  })

  it('when the flag is already given (either spelling), then there is no advice', () => {
    expect(oneCoreGcAdvice(1, ['--single-threaded-gc'])).toBeUndefined()
    expect(oneCoreGcAdvice(1, ['--single_threaded_gc'])).toBeUndefined()
  })

  it('when the process has more than one core, then there is no advice (the GC helpers run beside the event loop)', () => {
    expect(oneCoreGcAdvice(2, [])).toBeUndefined()
    expect(oneCoreGcAdvice(16, [])).toBeUndefined()
  })
})
