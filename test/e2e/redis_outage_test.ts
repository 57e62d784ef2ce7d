import { describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import type { Limits } from '../../src/keys/plans'
import type { RateDecision } from '../../src/ratelimit/decision'
import { cleanupsAfterEach, eventually, FREE, makeTestApp } from '../helpers'
import { redisTestLimiter, SHARED_STORES, startPrivateRedis } from '../shared_services'
import { startFreshServer } from './process_helpers'

const free: Limits = { rpm: 60, rpd: 1000 }

const cleanups = cleanupsAfterEach()

describe.skipIf(!SHARED_STORES)('RedisRateLimiter while Redis is down', () => {
  test('REDIS_FAILURE_MODE=open: limits per instance, warns once, reports degraded, and recovers without a restart', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const { limiter, logs } = await redisTestLimiter({ url: redis.url, failureMode: 'open' }, cleanups)
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
    const { limiter } = await redisTestLimiter({ url: redis.url, failureMode: 'closed' }, cleanups)
    const { call } = await makeTestApp({ limiter }, FREE)
    expect((await call('GET', '/v1/pets')).status).toBe(200)

    await redis.stop()
    expect(await limiter.consume(1, free, Date.now())).toMatchObject({
      refusal: 'rate_limiter_unavailable',
      remaining: 0,
      retryAfter: 1,
    })
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
    const timeoutMs = 100
    const { limiter } = await redisTestLimiter({ url: redis.url, failureMode: 'open', timeoutMs }, cleanups)
    await limiter.consume(1, free, Date.now())
    redis.pause()
    try {
      // Decided by the fallback once the timeout passes: well within twenty timeouts, never left waiting.
      const deadline = Bun.sleep(20 * timeoutMs).then(() => 'still waiting' as const)
      const decision = await Promise.race([limiter.consume(1, free, Date.now()), deadline])
      expect(decision).toMatchObject({ refusal: undefined })
      expect(await limiter.health()).toBe('degraded')
    } finally {
      redis.resume()
    }
  }, 20_000)
})

describe.skipIf(!SHARED_STORES)('a Redis outage costs one try a second, not a timeout a request (issue 31)', () => {
  test('while Redis hangs, one call at a time waits for it; every other is decided at once, and /health never waits', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const timeoutMs = 300
    const { limiter } = await redisTestLimiter({ url: redis.url, failureMode: 'open', timeoutMs }, cleanups)
    await limiter.consume(1, free, Date.now())
    redis.pause()
    try {
      // The first call finds out (it waits for the timeout); from then on the outage is known.
      await limiter.consume(1, free, Date.now())
      const took: number[] = []
      const healthTook: number[] = []
      const calls: Promise<unknown>[] = []
      const until = performance.now() + 2500
      while (performance.now() < until) {
        const started = performance.now()
        calls.push(
          Promise.resolve(limiter.consume(1, free, Date.now())).then(() => took.push(performance.now() - started)),
        )
        const asked = performance.now()
        expect(await limiter.health()).toBe('degraded')
        healthTook.push(performance.now() - asked)
        await Bun.sleep(10)
      }
      await Promise.all(calls)
      // About one try a second waits for Redis (two or three in 2.5 s); the rest, some two hundred, do not.
      const waited = took.filter((ms) => ms > timeoutMs / 2)
      expect(took.length).toBeGreaterThan(100)
      expect(waited.length).toBeLessThanOrEqual(4)
      expect(Math.max(...healthTook)).toBeLessThan(100)
    } finally {
      redis.resume()
    }
  }, 20_000)

  test('a Redis full at maxmemory (noeviction) that still answers PING is down for counting, and /health says so', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const { limiter } = await redisTestLimiter({ url: redis.url, failureMode: 'closed', timeoutMs: 500 }, cleanups)
    expect(await limiter.consume(1, free, Date.now())).toMatchObject({ refusal: undefined })
    const admin = new RedisClient(redis.url)
    cleanups.push(() => admin.close())
    // Full: whatever it holds now is over a limit of one byte more than it uses, and nothing may be evicted.
    const used = /used_memory:(\d+)/.exec((await admin.send('INFO', ['memory'])) as string)![1]
    await admin.send('CONFIG', ['SET', 'maxmemory-policy', 'noeviction'])
    await admin.send('CONFIG', ['SET', 'maxmemory', String(Number(used) + 1)])
    expect(await admin.send('PING', [])).toBe('PONG')
    expect(await limiter.consume(2, free, Date.now())).toMatchObject({ refusal: 'rate_limiter_unavailable' })
    expect(await limiter.health()).toBe('down')
    // Past the retry second, a PING would find Redis well; the probe, a write, still finds it cannot count.
    await Bun.sleep(1500)
    expect(await limiter.health()).toBe('down')
    expect(await limiter.health()).toBe('down')
    // Room again: the probe sees it without traffic.
    await admin.send('CONFIG', ['SET', 'maxmemory', '0'])
    expect(await eventually(async () => limiter.health(), 'ok', 4000)).toBe('ok')
  }, 20_000)

  test('an outage is noticed without any traffic, and so is the recovery', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const { limiter } = await redisTestLimiter({ url: redis.url, failureMode: 'closed', timeoutMs: 200 }, cleanups)
    expect(await limiter.health()).toBe('ok')
    redis.pause()
    try {
      expect(await eventually(async () => limiter.health(), 'down', 4000)).toBe('down')
    } finally {
      redis.resume()
    }
    expect(await eventually(async () => limiter.health(), 'ok', 4000)).toBe('ok')
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
