import { describe, expect, test } from 'bun:test'
import { addressSubject, keySubject } from '../../src/ratelimit/subject'

describe('addressSubject', () => {
  test('turns IPv4 addresses, plain or IPv4-mapped, into distinct negative numbers', () => {
    expect(addressSubject('0.0.0.0')).toBe(-1)
    expect(addressSubject('10.0.0.1')).toBe(-(10 * 2 ** 24 + 1) - 1)
    expect(addressSubject('::ffff:10.0.0.1')).toBe(addressSubject('10.0.0.1'))
    expect(addressSubject('255.255.255.255')).toBe(-(2 ** 32))
  })

  test('keeps anything else as text, apart from key ids', () => {
    expect(addressSubject('2001:db8::1')).toBe('ip:2001:db8::1')
    expect(addressSubject('256.1.1.1')).toBe('ip:256.1.1.1')
    expect(addressSubject('unknown')).toBe('ip:unknown')
    expect(keySubject(7)).toBe(7)
  })
})
