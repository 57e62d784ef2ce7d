import { describe, expect, test } from 'bun:test'
import { parseAddress } from '../../src/http/client_address'
import { addressSubject, isKeySubject, keySubject } from '../../src/ratelimit/subject'

const subjectOf = (text: string, prefix?: number) => addressSubject(parseAddress(text), prefix)

describe('addressSubject', () => {
  test('turns IPv4 addresses, however written, into distinct negative numbers', () => {
    expect(subjectOf('0.0.0.0')).toBe(-1)
    expect(subjectOf('10.0.0.1')).toBe(-(10 * 2 ** 24 + 1) - 1)
    expect(subjectOf('::ffff:10.0.0.1')).toBe(subjectOf('10.0.0.1'))
    expect(subjectOf('255.255.255.255')).toBe(-(2 ** 32))
  })

  test('counts IPv6 per /64 by default, each below every IPv4 subject', () => {
    const network = subjectOf('2001:db8:1:2::1') as number
    expect(network).toBeLessThan(-(2 ** 32))
    expect(Number.isSafeInteger(network)).toBe(true)
    expect(subjectOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(network)
    expect(subjectOf('2001:db8:1:3::1')).not.toBe(network)
  })

  test('counts IPv6 per the prefix it is given', () => {
    expect(subjectOf('2001:db8:1::1', 48)).toBe(subjectOf('2001:db8:1:ffff::1', 48))
    expect(subjectOf('2001:db8::1', 128)).not.toBe(subjectOf('2001:db8::2', 128))
    expect(subjectOf('2001:db8:1:2:3::', 66)).toBe(subjectOf('2001:db8:1:2:3fff::', 66))
    expect(subjectOf('2001:db8:1:2:3::', 66)).not.toBe(subjectOf('2001:db8:1:2:4000::', 66))
  })

  test('a million /64 networks get a million subjects', () => {
    const seen = new Set<unknown>()
    for (let i = 0; i < 1_000_000; i++)
      seen.add(subjectOf(`2001:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`))
    expect(seen.size).toBe(1_000_000)
  })

  test('a request with no address at all has one subject of its own; key ids stay apart', () => {
    expect(addressSubject(undefined)).toBe('ip:unknown')
    expect(keySubject({ quotaId: 7 })).toBe(7)
    expect(isKeySubject(7)).toBe(true)
    expect(isKeySubject(subjectOf('10.0.0.1'))).toBe(false)
    expect(isKeySubject('ip:unknown')).toBe(false)
  })
})
