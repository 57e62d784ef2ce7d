import { describe, expect, test } from 'bun:test'
import { parseDuration, parseExpiry } from '../../src/cli/time_text'

const NOW = Date.parse('2026-11-23T14:00:00.000Z')
const iso = (text: string) => new Date(parseExpiry(text, NOW)).toISOString()

describe('parseDuration', () => {
  test.each([
    ['0', 0],
    ['45s', 45_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['90d', 90 * 86_400_000],
    ['2w', 14 * 86_400_000],
    ['1d12h', 36 * 3_600_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  test.each(['', '-1h', '1', '1.5h', 'h', '24 h', '1y', 'soon'])('refuses "%s"', (text) => {
    expect(() => parseDuration(text)).toThrow('is not a duration')
  })
})

describe('parseExpiry', () => {
  test('a duration from now, a UTC date at its start, a timestamp in its zone', () => {
    expect(iso('90d')).toBe('2027-02-21T14:00:00.000Z')
    expect(iso('2027-01-31')).toBe('2027-01-31T00:00:00.000Z')
    expect(iso('2027-01-31T12:00:00Z')).toBe('2027-01-31T12:00:00.000Z')
    expect(iso('2027-01-31T12:00Z')).toBe('2027-01-31T12:00:00.000Z')
    expect(iso('2027-01-31T12:00:00.250-05:00')).toBe('2027-01-31T17:00:00.250Z')
  })

  test.each([
    ['2026-11-23', 'in the past'],
    ['2026-11-23T14:00:00Z', 'in the past'],
    ['0', 'is not a time'],
    ['2027-02-29', 'is not a time'],
    ['2027-01-31T12:00:00', 'is not a time'],
    ['31/01/2027', 'is not a time'],
    ['10000-01-01', 'is not a time'],
    ['9999999999d', 'is not a time'],
    ['3000000d', 'too far ahead'],
  ])('refuses "%s": %s', (text, message) => {
    expect(() => parseExpiry(text, NOW)).toThrow(message)
  })
})
