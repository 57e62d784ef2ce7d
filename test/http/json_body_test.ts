import { describe, expect, test } from 'bun:test'
import { isExactLiteral, isJsonMediaType } from '../../src/http/json_body'

describe('isExactLiteral', () => {
  test.each([
    ['1', true],
    ['-0', true],
    ['9007199254740991', true],
    ['9007199254740992', true],
    ['9007199254740993', false],
    ['18446744073709551616', true],
    ['18446744073709551617', false],
    ['1.0', true],
    ['1e3', true],
    ['1E+3', true],
    ['12.50e1', true],
    ['0.0', true],
    ['1.0000000000000001', false],
    ['9007199254740990.6', false],
    ['1e-400', false],
    ['1.5', true],
  ])('%s -> %p', (source, expected) => {
    expect(isExactLiteral(source, JSON.parse(source))).toBe(expected)
  })
})

describe('isJsonMediaType', () => {
  test.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['APPLICATION/JSON', true],
    [' application/json ;x=y', true],
    ['application/jsonx', false],
    ['application/problem+json', false],
    ['text/json', false],
    ['', false],
  ])('%s -> %p', (value, expected) => {
    expect(isJsonMediaType(value)).toBe(expected)
  })

  test('is false without a Content-Type', () => {
    expect(isJsonMediaType(null)).toBe(false)
  })
})
