import { describe, expect, it } from 'vitest'
import { createUuidV7 } from './uuid-v7.js'

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('createUuidV7', () => {
  it('makes RFC 9562 version 7 ids whose first 48 bits are the milliseconds', () => {
    for (const ms of [0, 1, 1_795_727_692_876, 2 ** 48 - 1]) {
      const id = createUuidV7(() => ms)()
      expect(id).toMatch(UUID_V7)
      expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms)
    }
  })

  it('sorts the ids of one generator in creation order, within a millisecond and across the counter running out', () => {
    let ms = 1_795_727_692_876
    const newId = createUuidV7(() => ms)
    const ids: string[] = []
    for (let i = 0; i < 10_000; i++) {
      if (i % 5000 === 4999) ms += 1
      ids.push(newId())
    }
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(UUID_V7)
  })

  it('answers a fresh string each time, not a view of its buffer', () => {
    const newId = createUuidV7()
    const first = newId()
    const copy = `${first}`
    newId()
    expect(first).toBe(copy)
  })
})
