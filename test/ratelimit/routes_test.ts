import { expect, test } from 'bun:test'
import { MAX_HEADER_BYTES, MAX_TARGET_BYTES } from '../../src/http/limits'
import type { RateLimiter } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { BAN_MS } from '../../src/ratelimit/windows'
import { DAY_MS, MINUTE_MS } from '../../src/time'
import { describeEachStore, expectError, FREE, FUTURE_MINUTE, json, makeTestApp } from '../helpers'

const T0 = FUTURE_MINUTE
const MINUTE_END = (T0 + MINUTE_MS) / 1000
const DAY_END = (Math.floor(T0 / DAY_MS) + 1) * (DAY_MS / 1000)

async function freeApp() {
  let now = T0 + 1000
  const made = await makeTestApp({ clock: () => now }, FREE)
  return { ...made, advance: (ms: number) => (now += ms) }
}

describeEachStore('GET /v1/rate_limit', () => {
  test('answers the plan, both windows and no ban, and counts nothing however often it is asked', async () => {
    const { call } = await freeApp()
    for (let i = 0; i < 12; i++) await call('GET', '/v1/pets')
    const expected = {
      plan: 'free',
      minute: { limit: 60, used: 12, remaining: 48, reset: MINUTE_END },
      day: { limit: 1000, used: 12, remaining: 988, reset: DAY_END },
      bannedUntil: null,
    }
    for (let i = 0; i < 100; i++) {
      const response = await call('GET', '/v1/rate_limit')
      expect(response.status).toBe(200)
      expect(await json(response)).toEqual(expected)
    }
    expect((await call('GET', '/v1/pets')).headers.get('x-ratelimit-remaining')).toBe('47')
  })

  test('carries the rate-limit headers of the same reading', async () => {
    const { call } = await freeApp()
    for (let i = 0; i < 5; i++) await call('GET', '/v1/pets')
    const response = await call('GET', '/v1/rate_limit')
    expect({
      limit: response.headers.get('x-ratelimit-limit'),
      remaining: response.headers.get('x-ratelimit-remaining'),
      used: response.headers.get('x-ratelimit-used'),
      resource: response.headers.get('x-ratelimit-resource'),
      reset: response.headers.get('x-ratelimit-reset'),
      ratelimit: response.headers.get('ratelimit'),
    }).toEqual({
      limit: '60',
      remaining: '55',
      used: '5',
      resource: 'minute',
      reset: String(MINUTE_END),
      ratelimit: '"minute";r=55;t=59',
    })
    expect(response.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=1000;w=86400')
  })

  test('answers 200 while the key is over its limit, and while it is banned, saying until when', async () => {
    const { call, advance } = await freeApp()
    for (let i = 0; i < 61; i++) await call('GET', '/v1/pets')
    const limited = await call('GET', '/v1/rate_limit')
    expect(limited.status).toBe(200)
    expect((await json(limited)).minute).toEqual({ limit: 60, used: 60, remaining: 0, reset: MINUTE_END })
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')

    for (let i = 0; i < 60; i++) await call('GET', '/v1/pets')
    const bannedAt = T0 + 1000
    const banned = await call('GET', '/v1/rate_limit')
    expect(banned.status).toBe(200)
    expect((await json(banned)).bannedUntil).toBe((bannedAt + BAN_MS) / 1000)
    expect(banned.headers.get('x-ratelimit-reset')).toBe(String((bannedAt + BAN_MS) / 1000))
    advance(BAN_MS)
    expect((await json(await call('GET', '/v1/rate_limit'))).bannedUntil).toBeNull()
  })

  test('with a trailing slash is the same free check', async () => {
    const { call } = await freeApp()
    for (let i = 0; i < 3; i++) expect((await call('GET', '/v1/rate_limit/')).status).toBe(200)
    expect((await json(await call('GET', '/v1/rate_limit'))).minute.used).toBe(0)
  })

  test('without a valid key is a 401 counted per address, like any other request', async () => {
    const { call } = await freeApp()
    for (let i = 0; i < 60; i++) {
      await expectError(await call('GET', '/v1/rate_limit', { key: `ask_guess${i}` }), 401, 'unauthorized')
    }
    await expectError(await call('GET', '/v1/rate_limit', { key: 'ask_one-more' }), 429, 'rate_limit_exceeded')
  })

  test('refused for its size (431, 414) still carries the rate-limit headers, and counts nothing', async () => {
    const { call } = await freeApp()
    for (let i = 0; i < 4; i++) await call('GET', '/v1/pets')
    const refusals = [
      await call('GET', '/v1/rate_limit', { headers: { 'x-padding': 'p'.repeat(MAX_HEADER_BYTES) } }),
      await call('GET', `/v1/rate_limit?${'q'.repeat(MAX_TARGET_BYTES)}`),
    ]
    await expectError(refusals[0]!, 431, 'headers_too_large')
    await expectError(refusals[1]!, 414, 'uri_too_long')
    for (const refused of refusals) {
      expect([refused.headers.get('x-ratelimit-remaining'), refused.headers.get('ratelimit')]).toEqual([
        '56',
        '"minute";r=56;t=59',
      ])
    }
    expect((await json(await call('GET', '/v1/rate_limit'))).minute.used).toBe(4)
  })

  test('answers 503 rate_limiter_unavailable, with the headers, when the limiter cannot be asked', async () => {
    const counting = new MemoryRateLimiter()
    const limiter: RateLimiter = {
      consume: (subject, limits, now) => counting.consume(subject, limits, now),
      peek: () => undefined,
      refund: (subject, limits, countedAt, now) => counting.refund(subject, limits, countedAt, now),
      reset: (subject, reset, now) => counting.reset(subject, reset, now),
    }
    const { call } = await makeTestApp({ clock: () => T0 + 1000, limiter }, FREE)
    const response = await call('GET', '/v1/rate_limit')
    await expectError(response, 503, 'rate_limiter_unavailable')
    expect([response.headers.get('retry-after'), response.headers.get('x-ratelimit-remaining')]).toEqual(['1', '0'])
  })

  test('with another method is a 405, counted', async () => {
    const { call } = await freeApp()
    const response = await call('POST', '/v1/rate_limit', { body: {} })
    await expectError(response, 405, 'method_not_allowed')
    expect(response.headers.get('allow')).toBe('GET, HEAD')
    expect((await json(await call('GET', '/v1/rate_limit'))).minute.used).toBe(1)
  })
})
