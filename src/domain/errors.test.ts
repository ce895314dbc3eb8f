import { describe, expect, it } from 'vitest'
import { withArticle } from './errors.js'

describe('withArticle', () => {
  it('when a word is put in a message, then it gets the article its sound takes', () => {
    expect(['expired', 'hold', 'pending', 'paid', 'failed'].map(withArticle)).toEqual([
      'an expired',
      'a hold',
      'a pending',
      'a paid',
      'a failed',
    ])
    expect(['unspecified', 'unique-local', 'loopback', 'link-local', 'private', 'multicast'].map(withArticle)).toEqual([
      'an unspecified',
      'a unique-local',
      'a loopback',
      'a link-local',
      'a private',
      'a multicast',
    ])
  })
})
