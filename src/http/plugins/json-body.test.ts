import { describe, expect, it } from 'vitest'
import { duplicateKey } from './json-body.js'

describe('a key given twice in one JSON object', () => {
  it('when no object repeats a key, then there is none, whatever the strings hold', () => {
    for (const text of [
      '{}',
      '[]',
      '"a"',
      '{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}',
      '{"a":"},{\\"a\\":1,","b":"[\\"a\\"]"}',
      '[{"a":1},{"a":1}]',
      '{"a":{},"b":[],"c":{}}',
    ]) {
      expect(duplicateKey(text), text).toBeUndefined()
    }
  })

  it('when an object repeats a key, at any depth or spelled with escapes, then it is that key', () => {
    expect(duplicateKey('{"amount":"1.00","amount":"1000.00"}')).toBe('amount')
    expect(duplicateKey('{"a":{"x":1,"y":{},"x":2}}')).toBe('x')
    expect(duplicateKey('[1,{"k":[{"z":1}],"k":0}]')).toBe('k')
    expect(duplicateKey('{"order_id":"A","order\\u005fid":"B"}')).toBe('order_id')
    expect(duplicateKey('{"a\\"b":1,"a\\"b":2}')).toBe('a"b')
  })

  it('when the text ends inside a string (not JSON: the parser refused it before), then the pass still ends', () => {
    expect(duplicateKey('{"a":1,"a')).toBeUndefined()
    expect(duplicateKey('{"a":"\\')).toBeUndefined()
  })

  it('when objects nest thousands deep, then the pass does not recurse', () => {
    expect(duplicateKey(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`)).toBeUndefined()
  })
})
