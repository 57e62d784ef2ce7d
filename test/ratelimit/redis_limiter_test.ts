import { afterEach, describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { HttpError } from '../../src/errors'
import type { Limits } from '../../src/keys/plans'
import {
  BAN_MS,
  DAY_MS,
  MemoryRateLimiter,
  MINUTE_MS,
  type RateDecision,
  type Subject,
} from '../../src/ratelimit/limiter'
import { describeEachStore, FREE, makeTestApp } from '../helpers'
import { eventually, startFreshServer } from '../process_helpers'
import { redisTestLimiter, SHARED_STORES, startPrivateRedis, TEST_REDIS_URL } from '../shared_services'

const free: Limits = { rpm: 60, rpd: 1000 }
// Redis expires a window's keys at its end (PEXPIREAT): the test clock must be ahead of Redis's.
const T0 = Date.UTC(2099, 10, 21, 10, 0, 0)

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function limiterUnderTest(options: Parameters<typeof redisTestLimiter>[0] = {}) {
  const made = await redisTestLimiter(options)
  cleanups.push(made.cleanup)
  return made
}

describe.skipIf(!SHARED_STORES)('RedisRateLimiter', () => {
  test('decides exactly as MemoryRateLimiter over minutes, a day boundary and a ban', async () => {
    // A generous timeout: on a busy machine a slow answer would be decided by the fallback instead.
    const { limiter, logs } = await limiterUnderTest({ timeoutMs: 10_000 })
    const memory = new MemoryRateLimiter()
    const small: Limits = { rpm: 5, rpd: 12 }
    const subjects: [Subject, Limits][] = [
      [1, small],
      [2, free],
      [-167772161, small],
      ['ip:::1', small],
    ]
    // A fixed pseudo-random walk through time: bursts, minute changes, a ban, the next UTC day.
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    let now = T0 + DAY_MS - 20 * MINUTE_MS
    const differences: string[] = []
    const kinds = new Set<string>()
    for (let i = 0; i < 600; i++) {
      const [subject, limits] = subjects[Math.floor(random() * subjects.length)]!
      const step = random()
      now += step < 0.7 ? 0 : step < 0.95 ? Math.floor(random() * 20_000) : Math.floor(random() * BAN_MS)
      const expected = memory.consume(subject, limits, now)
      const actual = await limiter.consume(subject, limits, now)
      kinds.add(`${actual.refusal ?? 'allowed'} ${actual.window}`)
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        differences.push(`#${i} ${subject}@${now}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`)
    }
    expect(logs).toEqual([])
    expect(differences).toEqual([])
    // The walk crossed midnight and met every kind of answer.
    expect(now).toBeGreaterThan(T0 + DAY_MS)
    expect([...kinds].sort()).toEqual([
      'allowed day',
      'allowed minute',
      'key_banned ban',
      'rate_limit_exceeded day',
      'rate_limit_exceeded minute',
    ])
  })

  test('counts concurrent requests atomically: 200 at once give exactly 60', async () => {
    const { limiter } = await limiterUnderTest()
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.consume(42, free, T0 + 5000)))
    expect(decisions.filter((d) => d.refusal === undefined).length).toBe(60)
    expect(decisions.filter((d) => d.refusal === 'rate_limit_exceeded').length).toBe(60)
    // The 61st refusal within the minute bans.
    expect(decisions.filter((d) => d.refusal === 'key_banned').length).toBe(80)
  })

  test('keys expire when their window ends', async () => {
    const { limiter, prefix } = await limiterUnderTest()
    const now = T0 + 12_345
    await limiter.consume(9, free, now)
    const redis = new RedisClient(TEST_REDIS_URL!)
    try {
      const expiry = async (key: string) => Number(await redis.send('PEXPIRETIME', [`${prefix}:{9}:${key}`]))
      expect(await expiry(`m:${Math.floor(now / MINUTE_MS)}`)).toBe(T0 + MINUTE_MS)
      expect(await expiry(`d:${Math.floor(now / DAY_MS)}`)).toBe(Math.ceil(now / DAY_MS) * DAY_MS)
    } finally {
      redis.close()
    }
  })

  test('loads its script again after Redis forgot it (SCRIPT FLUSH, as after a restart)', async () => {
    const { limiter } = await limiterUnderTest()
    expect((await limiter.consume(3, free, T0)).remaining).toBe(59)
    const redis = new RedisClient(TEST_REDIS_URL!)
    await redis.send('SCRIPT', ['FLUSH'])
    redis.close()
    expect((await limiter.consume(3, free, T0)).remaining).toBe(58)
    expect(await limiter.health()).toBe('ok')
  })
})

describe.skipIf(!SHARED_STORES)('RedisRateLimiter while Redis is down', () => {
  test('REDIS_FAILURE_MODE=open: limits per instance, warns once, reports degraded, and recovers without a restart', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const { limiter, logs } = await limiterUnderTest({ url: redis.url, failureMode: 'open' })
    const now = Date.now()
    expect(await limiter.consume(1, free, now)).toMatchObject({ refusal: undefined, remaining: 59 })

    await redis.stop()
    const during: RateDecision[] = []
    for (let i = 0; i < 5; i++) during.push(await limiter.consume(1, free, now))
    // Counted by the in-process fallback, which had not seen the first request.
    expect(during.map((d) => d.remaining)).toEqual([59, 58, 57, 56, 55])
    expect(await limiter.health()).toBe('degraded')
    expect(logs.filter((line) => line.level === 'warn').map((line) => line.msg)).toEqual([
      'rate limiter: Redis unreachable, requests go on, limited per instance until it answers again',
    ])

    await redis.start()
    // Shared counting resumes on the same client: a fresh Redis starts the window at zero.
    const back = await eventually(
      async () => {
        const decision = await limiter.consume(2, free, Date.now())
        return (await limiter.health()) === 'ok' && decision.remaining === 59
      },
      true,
      5000,
    )
    expect(back).toBe(true)
    expect(logs.at(-1)?.msg).toBe('rate limiter: Redis answers again; limits are shared once more')
  }, 20_000)

  test('REDIS_FAILURE_MODE=closed: /v1 answers 503 with Retry-After, /health 503, until Redis is back', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const { limiter } = await limiterUnderTest({ url: redis.url, failureMode: 'closed' })
    const { call } = await makeTestApp({ limiter }, FREE)
    expect((await call('GET', '/v1/pets')).status).toBe(200)

    await redis.stop()
    await expect(limiter.consume(1, free, Date.now())).rejects.toBeInstanceOf(HttpError)
    const refused = await call('GET', '/v1/pets')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual([
      '60',
      '0',
    ])
    expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000)
    expect(await refused.json()).toEqual({
      code: 'rate_limiter_unavailable',
      message: 'The rate limiter cannot be reached; retry shortly',
      status: 503,
    })
    expect((await call('GET', '/health', { key: null })).status).toBe(503)

    await redis.start()
    // No /v1 traffic needed: /health itself asks Redis again, so a load balancer that took the instance out brings it back.
    expect(await eventually(async () => (await call('GET', '/health', { key: null })).status, 200, 5000)).toBe(200)
    expect((await call('GET', '/v1/pets')).status).toBe(200)
  }, 20_000)

  test('a Redis that hangs (SIGSTOP) counts as down after the timeout, not forever', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const { limiter } = await limiterUnderTest({ url: redis.url, failureMode: 'open', timeoutMs: 100 })
    await limiter.consume(1, free, Date.now())
    redis.pause()
    try {
      const started = performance.now()
      expect((await limiter.consume(1, free, Date.now())).refusal).toBeUndefined()
      expect(performance.now() - started).toBeLessThan(2000)
      expect(await limiter.health()).toBe('degraded')
    } finally {
      redis.resume()
    }
  }, 20_000)
})

describe.skipIf(!SHARED_STORES)('a serve process whose Redis goes away', () => {
  test('keeps answering with rate-limit headers, says degraded, and shares limits again once Redis is back', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const fresh = await startFreshServer({ REDIS_URL: redis.url, LOG_LEVEL: 'warn' })
    cleanups.push(fresh.cleanup)
    const get = (path: string) =>
      fetch(`${fresh.server.url}${path}`, { headers: { authorization: `Bearer ${fresh.key}` } })
    expect((await get('/v1/pets')).headers.get('x-ratelimit-remaining')).toBe('59')

    await redis.stop()
    const during = await get('/v1/pets')
    expect(during.status).toBe(200)
    expect(during.headers.get('x-ratelimit-limit')).toBe('60')
    expect(await (await fetch(`${fresh.server.url}/health`)).json()).toEqual({
      status: 'degraded',
      rateLimiter: 'unreachable',
    })

    await redis.start()
    const healthy = async () =>
      ((await (await fetch(`${fresh.server.url}/health`)).json()) as { status: string }).status
    // Health reports the last call's outcome: requests probe Redis again, at most once a second.
    expect(await eventually(async () => ((await get('/v1/pets')).ok ? healthy() : 'refused'), 'ok', 5000)).toBe('ok')
    // The fresh Redis counts this minute from zero again: shared counting is back.
    expect(Number((await get('/v1/pets')).headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(55)
  }, 30_000)
})

describeEachStore('a request under /v1 (rate limits through the app)', () => {
  test('gets the same headers from either limiter', async () => {
    const { call } = await makeTestApp({ clock: () => T0 + 1500 }, FREE)
    const response = await call('GET', '/v1/pets')
    expect([
      response.headers.get('x-ratelimit-limit'),
      response.headers.get('x-ratelimit-remaining'),
      response.headers.get('x-ratelimit-reset'),
    ]).toEqual(['60', '59', String((T0 + MINUTE_MS) / 1000)])
  })
})
