import { describe, expect, test } from 'bun:test'
import { entityTag, ifMatchMatches, ifNoneMatchMatches } from '../../src/http/conditional'

describe('entityTag', () => {
  test('is a strong quoted tag, equal for equal texts and different for different ones', () => {
    expect(entityTag('[1]')).toMatch(/^"[0-9a-z]+"$/)
    expect(entityTag('[1]')).toBe(entityTag('[1]'))
    expect(entityTag('[1]')).not.toBe(entityTag('[2]'))
  })

  test('tells the same text apart by variant, and variant 0 is the plain tag', () => {
    expect(entityTag('[1]', 1)).toMatch(/^"[0-9a-z]+"$/)
    expect(entityTag('[1]', 1)).not.toBe(entityTag('[1]'))
    expect(entityTag('[1]', 0)).toBe(entityTag('[1]'))
  })
})

describe('ifNoneMatchMatches (weak comparison, RFC 9110 §13.1.2)', () => {
  const tag = '"abc"'
  test.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" , "y"', true],
    ['*', true],
    [' * ', true],
    ['"abcd"', false],
    ['"ab"', false],
    ['abc', false],
    ['"x", abc', false],
    ['"abc', false],
    ['', false],
    [',,', false],
  ])('%p matches: %p', (field, expected) => {
    expect(ifNoneMatchMatches(field, tag)).toBe(expected)
  })

  test('no field matches nothing', () => {
    expect(ifNoneMatchMatches(null, tag)).toBe(false)
  })
})

describe('ifMatchMatches (strong comparison, RFC 9110 §13.1.1)', () => {
  const tag = '"abc"'
  test.each([
    ['"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['W/"abc"', false],
    ['W/"abc", "x"', false],
    ['"abcd"', false],
    ['abc', false],
    ['"abc', false],
    ['', false],
  ])('%p matches: %p', (field, expected) => {
    expect(ifMatchMatches(field, tag)).toBe(expected)
  })
})
