import { describe, expect, test } from 'bun:test'
import { isWellFormedApiKey, KEY_PREFIX } from '../../src/key_shape'
import { bearerToken, generateApiKey, hashApiKey } from '../../src/keys/api_key'

describe('generateApiKey', () => {
  test('makes the prefix and 32 random bytes in base64url', () => {
    const key = generateApiKey()
    expect(key.startsWith(KEY_PREFIX)).toBe(true)
    expect(key.startsWith('ask_')).toBe(true)
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32)
    expect(key).toMatch(/^ask_[A-Za-z0-9_-]{43}$/)
    expect(isWellFormedApiKey(key)).toBe(true)
  })

  test('never repeats itself', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey))
    expect(keys.size).toBe(1000)
  })
})

describe('hashApiKey', () => {
  test('is the hex SHA-256 of the key', async () => {
    const key = generateApiKey()
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)))
    expect(hashApiKey(key)).toBe(Buffer.from(digest).toString('hex'))
  })
})

describe('bearerToken', () => {
  test.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc', 'abc'],
    ['Bearer abc ', 'abc'],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Basic abc', undefined],
    ['Bearer a b', undefined],
    ['abc', undefined],
  ])('"%s" -> %p', (header, expected) => {
    expect(bearerToken(header)).toBe(expected as string | undefined)
  })

  test('is undefined without a header', () => {
    expect(bearerToken(null)).toBeUndefined()
  })
})
