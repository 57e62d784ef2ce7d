import { describe, expect, test } from 'bun:test'
import { addressText, clientAddress, parseAddress } from '../../src/http/client_address'

describe('parseAddress', () => {
  test.each([
    '9.8.7.6',
    ' 9.8.7.6 ',
    '9.8.7.6:1',
    '9.8.7.6:65535',
    '[9.8.7.6]',
    '"9.8.7.6"',
    '0:0:0:0:0:ffff:9.8.7.6',
    '::ffff:9.8.7.6',
    '::FFFF:0908:0706',
    '[::ffff:9.8.7.6]:8080',
  ])('reads %p as the IPv4 address 9.8.7.6', (text) => {
    expect(parseAddress(text)).toEqual({ version: 4, value: 0x09080706 })
  })

  const db87 = [0x2001, 0xdb8, 0, 0, 0, 0, 0, 7]
  test.each([
    '2001:db8::7',
    '2001:DB8::7',
    '2001:0db8::7',
    '2001:db8:0:0:0:0:0:7',
    '[2001:db8::7]',
    '[2001:db8::7]:443',
    '2001:db8::7%eth0',
    '"[2001:db8::7]:1"',
  ])('reads %p as 2001:db8::7', (text) => {
    expect(parseAddress(text)).toEqual({ version: 6, groups: db87 })
  })

  test('expands every form of zero compression and an IPv4 tail', () => {
    expect(parseAddress('::')).toEqual({ version: 6, groups: [0, 0, 0, 0, 0, 0, 0, 0] })
    expect(parseAddress('::1')).toEqual({ version: 6, groups: [0, 0, 0, 0, 0, 0, 0, 1] })
    expect(parseAddress('fe80::')).toEqual({ version: 6, groups: [0xfe80, 0, 0, 0, 0, 0, 0, 0] })
    expect(parseAddress('64:ff9b::1.2.3.4')).toEqual({ version: 6, groups: [0x64, 0xff9b, 0, 0, 0, 0, 0x102, 0x304] })
  })

  test.each([
    'unknown',
    '',
    '256.1.1.1',
    '1.2.3',
    '9.8.7.6:',
    '9.8.7.6:123456',
    '[2001:db8::7',
    '[2001:db8::7]x',
    '2001:db8::7:443:1:2:3:4',
    'ask_0123456789abcdef',
    '1'.repeat(100),
  ])('refuses %p', (text) => {
    expect(parseAddress(text)).toBeUndefined()
  })
})

describe('clientAddress', () => {
  const request = (forwarded?: string) =>
    new Request('http://localhost/v1/pets', { headers: forwarded ? { 'x-forwarded-for': forwarded } : {} })

  test('is the socket peer unless TRUST_PROXY is on', () => {
    expect(clientAddress(request('9.9.9.9'), '10.0.0.1', false)).toEqual({ version: 4, value: 0x0a000001 })
    expect(clientAddress(request('9.9.9.9, 10.0.0.2'), '10.0.0.1', true)).toEqual({ version: 4, value: 0x09090909 })
  })

  test('falls back to the peer when the first hop is not an address, and is undefined without one', () => {
    expect(clientAddress(request('nonsense'), '::ffff:10.0.0.1', true)).toEqual({ version: 4, value: 0x0a000001 })
    expect(clientAddress(request(), undefined, true)).toBeUndefined()
  })
})

describe('addressText', () => {
  test.each([
    ['203.0.113.7', '203.0.113.7'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::ffff:9.8.7.6', '9.8.7.6'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
  ])('writes %s as %s (RFC 5952 for IPv6)', (text, expected) => {
    expect(addressText(parseAddress(text)!)).toBe(expected)
  })
})
