import { describe, expect, test } from 'bun:test'
import { parseList } from 'structured-headers'
import { describeEachStore, FREE, FUTURE_MINUTE, makeTestApp, UNLIMITED } from '../helpers'

const T0 = FUTURE_MINUTE

/** A field parsed as an RFC 8941 List of Items, each a String with its parameters as a plain object. */
function policies(field: string | null): { name: unknown; params: Record<string, unknown> }[] {
  if (field === null) throw new Error('field missing')
  return parseList(field).map((member) => {
    const [name, params] = member as [unknown, Map<string, unknown>]
    return { name, params: Object.fromEntries(params) }
  })
}

describeEachStore('the IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  test('RateLimit-Policy is a List of String Items with integer q and w, one per window', async () => {
    const { call } = await makeTestApp({ clock: () => T0 + 26_000 }, FREE)
    const response = await call('GET', '/v1/pets')
    expect(policies(response.headers.get('ratelimit-policy'))).toEqual([
      { name: 'minute', params: { q: 60, w: 60 } },
      { name: 'day', params: { q: 1000, w: 86400 } },
    ])
    expect(policies(response.headers.get('ratelimit'))).toEqual([{ name: 'minute', params: { r: 59, t: 34 } }])
  })

  test('large custom limits stay Integers', async () => {
    const { call } = await makeTestApp({ clock: () => T0 }, UNLIMITED)
    const response = await call('GET', '/v1/pets')
    expect(policies(response.headers.get('ratelimit-policy'))[1]).toEqual({
      name: 'day',
      params: { q: UNLIMITED.rpd, w: 86400 },
    })
  })

  test('on a 429, RateLimit names the blocking window and Retry-After is never earlier than t', async () => {
    const { call } = await makeTestApp({ clock: () => T0 + 1500 }, FREE)
    for (let i = 0; i < 60; i++) await call('GET', '/v1/pets')
    for (let refusal = 0; refusal < 2; refusal++) {
      const refused = await call('GET', '/v1/pets')
      expect(refused.status).toBe(429)
      const [field] = policies(refused.headers.get('ratelimit'))
      expect(field!.name).toBe('minute')
      expect(field!.params.r).toBe(0)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(field!.params.t as number)
    }
  })
})

describe('the test parser', () => {
  test('refuses what is not a structured List, and tells a Token from a String', () => {
    expect(policies('minute;q=60')[0]!.name).not.toBe('minute')
    expect(() => policies('"minute";q=6.0.0')).toThrow()
    expect(() => policies('"minute";q="60" junk')).toThrow()
  })
})
