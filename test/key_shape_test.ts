import { describe, expect, test } from 'bun:test'
import { isWellFormedApiKey, redactApiKeys } from '../src/key_shape'

describe('isWellFormedApiKey', () => {
  test.each([
    '',
    'ask_',
    'ask_short',
    `ASK_${'a'.repeat(43)}`,
    `ask_${'a'.repeat(42)}`,
    `ask_${'a'.repeat(44)}`,
    `ask_${'+'.repeat(43)}`,
  ])('refuses "%s"', (value) => {
    expect(isWellFormedApiKey(value)).toBe(false)
  })
})

describe('redactApiKeys', () => {
  test('replaces anything shaped like a key and leaves other text alone', () => {
    expect(redactApiKeys('GET /v1/pets/ask_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG?x')).toBe(
      'GET /v1/pets/ask_[redacted]?x',
    )
    expect(redactApiKeys('ask_short ask_12345678')).toBe('ask_short ask_[redacted]')
    expect(redactApiKeys('no keys here')).toBe('no keys here')
  })
})
