import { describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { openDatabase } from '../../src/db/sqlite'
import type { Limits } from '../../src/keys/plans'
import { SqlitePetStore } from '../../src/pets/sqlite_store'
import type { RateLimiter, Subject } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { BAN_MS } from '../../src/ratelimit/windows'
import { DAY_MS, MINUTE_MS } from '../../src/time'
import { cleanupsAfterEach, describeEachStore, FREE, FUTURE_MINUTE, makeTestApp, seededRandom } from '../helpers'
import { withList } from '../pets/counted_store'
import { redisTestLimiter, SHARED_STORES, TEST_REDIS_URL } from '../shared_services'

const free: Limits = { rpm: 60, rpd: 1000 }
const T0 = FUTURE_MINUTE

const cleanups = cleanupsAfterEach()

/** A decision or reading as JSON without the store's version, which only a shared limiter reads (pets/shared_page_cache.ts). */
const counts = (answer: object | undefined) => JSON.stringify(answer && { ...answer, storeVersion: undefined })

describe.skipIf(!SHARED_STORES)('RedisRateLimiter', () => {
  test('decides, reads and refunds exactly as MemoryRateLimiter over minutes, a day boundary and a ban', async () => {
    // A generous timeout: on a busy machine a slow answer would be decided by the fallback instead.
    const { limiter, logs } = await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)
    const memory = new MemoryRateLimiter()
    const small: Limits = { rpm: 5, rpd: 12 }
    const subjects: [Subject, Limits][] = [
      [1, small],
      [2, free],
      [-167772161, small],
      ['ip:::1', small],
    ]
    // A fixed pseudo-random walk through time: bursts, minute changes, a ban, the next UTC day.
    const random = seededRandom(7)
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
      if (counts(actual) !== counts(expected))
        differences.push(`#${i} ${subject}@${now}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`)
      // A request given back (a 304, our own 5xx), sometimes a window later, leaves the same counts.
      if (actual.refusal === undefined && random() < 0.2) {
        const later = now + (random() < 0.5 ? 0 : Math.floor(random() * 90_000))
        const [back, backInMemory] = [
          await limiter.refund(subject, limits, now, later),
          memory.refund(subject, limits, now, later),
        ]
        kinds.add('refund')
        now = later
        if (counts(back) !== counts(backInMemory))
          differences.push(`#${i} refund ${subject}@${now}: ${JSON.stringify(back)} vs ${JSON.stringify(backInMemory)}`)
      }
      // What a quota check reads, counting nothing, is the same too.
      const [looked, lookedInMemory] = [await limiter.peek(subject, limits, now), memory.peek(subject, limits, now)]
      if (counts(looked) !== counts(lookedInMemory))
        differences.push(`#${i} peek ${subject}@${now}: ${JSON.stringify(looked)} vs ${JSON.stringify(lookedInMemory)}`)
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
      'refund',
    ])
  })

  test('counts concurrent requests atomically: 200 at once give exactly 60', async () => {
    const { limiter } = await redisTestLimiter({}, cleanups)
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.consume(42, free, T0 + 5000)))
    expect(decisions.filter((d) => d.refusal === undefined).length).toBe(60)
    expect(decisions.filter((d) => d.refusal === 'rate_limit_exceeded').length).toBe(60)
    // The 61st refusal within the minute bans.
    expect(decisions.filter((d) => d.refusal === 'key_banned').length).toBe(80)
  })

  test("decides a turn's requests of a key, counted by one call, exactly as one at a time", async () => {
    const { limiter } = await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)
    const memory = new MemoryRateLimiter()
    const small: Limits = { rpm: 5, rpd: 12 }
    const subjects: [Subject, Limits][] = [
      [11, small],
      [12, small],
      [13, free],
      ['ip:::2', small],
    ]
    const random = seededRandom(11)
    // Bursts made in one turn, as concurrent requests are: subjects mixed, and `now` moving by a millisecond
    // and back within a burst, so a key's requests with another `now` between them are not counted together.
    // Across a minute's end `now` only moves on, as a clock does (the in-memory limiter keeps one minute).
    let base = T0 + 1000
    const differences: string[] = []
    const kinds = new Set<string>()
    for (let burst = 0; burst < 80; burst++) {
      const requests = Array.from({ length: 1 + Math.floor(random() * 14) }, () => {
        const [subject, limits] = subjects[Math.floor(random() * (random() < 0.7 ? 1 : subjects.length))]!
        return { subject, limits, now: base + (random() < 0.3 ? 1 : 0) }
      })
      if ((base + 1) % MINUTE_MS === 0) requests.sort((a, b) => a.now - b.now)
      const expected = requests.map(({ subject, limits, now }) => memory.consume(subject, limits, now))
      const actual = await Promise.all(
        requests.map(({ subject, limits, now }) => limiter.consume(subject, limits, now)),
      )
      actual.forEach((decision, i) => {
        kinds.add(`${decision.refusal ?? 'allowed'} ${decision.window}`)
        if (counts(decision) !== counts(expected[i]))
          differences.push(`burst ${burst} #${i}: ${JSON.stringify(decision)} vs ${JSON.stringify(expected[i])}`)
      })
      // Mostly the same minute; now and then the next one, the minute's last millisecond (a burst across two
      // minutes), or past a ban.
      const step = random()
      if (step < 0.6) base += 2
      else if (step < 0.8) base += MINUTE_MS
      else if (step < 0.9) base = Math.ceil((base + 2) / MINUTE_MS) * MINUTE_MS - 1
      else base += BAN_MS
    }
    expect(differences).toEqual([])
    expect([...kinds]).toEqual(
      expect.arrayContaining([
        'allowed minute',
        'rate_limit_exceeded minute',
        'key_banned ban',
        'rate_limit_exceeded day',
      ]),
    )
  })

  test("sends one call for a key's requests of one turn, and one per key", async () => {
    const { limiter } = await redisTestLimiter({}, cleanups)
    const redis = new RedisClient(TEST_REDIS_URL!)
    const scriptCalls = async () => {
      const stats = String(await redis.send('INFO', ['commandstats']))
      return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0)
    }
    try {
      const before = await scriptCalls()
      const decisions = await Promise.all([
        ...Array.from({ length: 50 }, () => limiter.consume(21, free, T0 + 7000)),
        ...Array.from({ length: 10 }, () => limiter.consume(22, free, T0 + 7000)),
      ])
      expect(await scriptCalls()).toBe(before + 2)
      expect(decisions.slice(0, 50).map((decision) => decision.remaining)).toEqual(
        Array.from({ length: 50 }, (_, i) => 59 - i),
      )
      expect(decisions.slice(50).map((decision) => decision.remaining)).toEqual([
        59, 58, 57, 56, 55, 54, 53, 52, 51, 50,
      ])
      // The next turn's request is counted by a call of its own, after them.
      expect((await limiter.consume(21, free, T0 + 7000)).remaining).toBe(9)
      expect(await scriptCalls()).toBe(before + 3)
    } finally {
      redis.close()
    }
  })

  test('keys expire when their window ends', async () => {
    const { limiter, prefix } = await redisTestLimiter({}, cleanups)
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

  test('holds about ANON_SUBJECTS_MAX callers without a key, as the in-memory limiter does, and never forgets a refusal', async () => {
    const { limiter, prefix } = await redisTestLimiter({ anonymousMax: 1000, timeoutMs: 10_000 }, cleanups)
    const memory = new MemoryRateLimiter({ anonymousMax: 1000 })
    // Callers without a key are on the Free plan's limits, which both limiters' bounds read.
    const both = async (subject: Subject, now: number) => {
      const [inRedis, inMemory] = [await limiter.consume(subject, free, now), memory.consume(subject, free, now)]
      expect(inRedis).toEqual(inMemory)
      return inRedis
    }
    // -1 spends its day over 17 minutes; -2 spends the current minute; -3 is seen once, first.
    for (let minute = 0; minute < 17; minute++)
      await Promise.all(Array.from({ length: 60 }, () => both(-1, T0 + minute * MINUTE_MS)))
    const now = T0 + 17 * MINUTE_MS
    await Promise.all(Array.from({ length: 60 }, () => both(-2, now)))
    await both(-3, now)
    // A flood of 3,000 distinct callers, one request each.
    for (let first = 10; first < 3010; first += 100)
      await Promise.all(Array.from({ length: 100 }, (_, i) => limiter.consume(-(first + i), free, now)))
    for (let subject = 10; subject < 3010; subject++) memory.consume(-subject, free, now)
    expect(await both(-1, now)).toMatchObject({ refusal: 'rate_limit_exceeded', window: 'day' })
    expect(await both(-2, now)).toMatchObject({ refusal: 'rate_limit_exceeded', window: 'minute' })
    // The least recently seen are forgotten, in both.
    expect(await limiter.peek(-3, free, now)).toEqual({ usedMinute: 0, usedDay: 0, banEnd: undefined })
    expect(memory.peek(-3, free, now)).toEqual({ usedMinute: 0, usedDay: 0, banEnd: undefined })
    expect(await limiter.peek(-3009, free, now)).toEqual({ usedMinute: 1, usedDay: 1, banEnd: undefined })
    // What Redis holds: a few hashes, and no more callers than the in-memory limiter would.
    const redis = new RedisClient(TEST_REDIS_URL!)
    try {
      const keys = (await redis.send('KEYS', [`${prefix}:*`])) as string[]
      // Per minute: who spent it (b) and who was refused in it (r), each expiring with its minute.
      const perMinute = keys.filter((key) => /:[br]:\d+$/.test(key))
      for (const key of perMinute) {
        const minute = Number(key.split(':').at(-1))
        expect(Number(await redis.send('PEXPIRETIME', [key]))).toBe((minute + 1) * MINUTE_MS)
      }
      // Beyond them, the day's three hashes: spent, recent, older.
      expect(keys.filter((key) => !perMinute.includes(key)).sort()).toEqual(
        ['older', 'recent', 'spent'].map((hash) => `${prefix}:{anonymous}:d:${Math.floor(now / DAY_MS)}:${hash}`),
      )
      let callers = 0
      for (const key of keys.filter((key) => key.includes(':d:'))) callers += Number(await redis.send('HLEN', [key]))
      expect(callers).toBeLessThanOrEqual(1000 + 1)
      expect(callers).toBeGreaterThanOrEqual(500)
    } finally {
      redis.close()
    }
  })

  test('loads its script again after Redis forgot it (SCRIPT FLUSH, as after a restart)', async () => {
    const { limiter } = await redisTestLimiter({}, cleanups)
    expect((await limiter.consume(3, free, T0)).remaining).toBe(59)
    const redis = new RedisClient(TEST_REDIS_URL!)
    await redis.send('SCRIPT', ['FLUSH'])
    redis.close()
    expect((await limiter.consume(3, free, T0)).remaining).toBe(58)
    expect(await limiter.health()).toBe('ok')
  })
})

// Nothing listens on port 1: every call fails at once, with no Redis server needed.
const NO_REDIS = 'redis://127.0.0.1:1'

describe('RedisRateLimiter that cannot reach Redis', () => {
  test('closed: decides rate_limiter_unavailable, nothing left, retry in a second; /health says down', async () => {
    const { limiter } = await redisTestLimiter({ url: NO_REDIS, failureMode: 'closed', timeoutMs: 200 }, cleanups)
    const now = T0 + 1500
    expect(await limiter.consume(1, free, now)).toEqual({
      refusal: 'rate_limiter_unavailable',
      window: 'minute',
      limit: 60,
      used: 60,
      remaining: 0,
      reset: Math.ceil(now / 1000) + 1,
      resetAfter: 1,
      retryAfter: 1,
      limits: free,
    })
    expect(await limiter.peek(1, free, now)).toBeUndefined()
    expect(await limiter.health()).toBe('down')
  })

  test("a turn's requests of a key, failing together, are each decided by the failure mode, in order", async () => {
    const closed = await redisTestLimiter({ url: NO_REDIS, failureMode: 'closed', timeoutMs: 200 }, cleanups)
    const refusals = await Promise.all(Array.from({ length: 5 }, () => closed.limiter.consume(1, free, T0)))
    expect(refusals.map((decision) => decision.refusal)).toEqual(Array(5).fill('rate_limiter_unavailable'))
    const open = await redisTestLimiter({ url: NO_REDIS, failureMode: 'open', timeoutMs: 200 }, cleanups)
    const counted = await Promise.all(Array.from({ length: 5 }, () => open.limiter.consume(1, free, T0)))
    // Each counted by the fallback on its own, as one call each would have been.
    expect(counted.map((decision) => decision.remaining)).toEqual([59, 58, 57, 56, 55])
    expect((await open.limiter.consume(1, free, T0)).remaining).toBe(54)
  })

  test('open: decides with the in-process fallback; /health says degraded', async () => {
    const { limiter } = await redisTestLimiter({ url: NO_REDIS, failureMode: 'open', timeoutMs: 200 }, cleanups)
    expect(await limiter.consume(1, free, T0)).toMatchObject({ refusal: undefined, limit: 60, remaining: 59 })
    expect(await limiter.peek(1, free, T0)).toEqual({ usedMinute: 1, usedDay: 1, banEnd: undefined })
    expect(await limiter.health()).toBe('degraded')
  })
})

describe.skipIf(!SHARED_STORES)('the same requests through the app, on either limiter', () => {
  /** An app on the given limiter whose pet store fails (500) while `failing.now` is set. */
  async function appOn(limiter: RateLimiter, failing: { now: boolean }) {
    const store = new SqlitePetStore(openDatabase(':memory:'))
    const pets = withList(store, (query) =>
      failing.now ? Promise.reject(new Error('disk on fire')) : store.list(query),
    )
    return makeTestApp({ clock: () => T0 + 7_000, limiter, pets }, FREE)
  }

  test('give the same statuses and rate-limit headers: 200s, 304s, a 500, 404s, the quota check, 429s', async () => {
    const { limiter: redis } = await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)
    const failing = { now: false }
    const apps = [await appOn(new MemoryRateLimiter(), failing), await appOn(redis, failing)]
    const fields = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-used']
    const named = [...fields, 'x-ratelimit-resource', 'ratelimit', 'ratelimit-policy', 'retry-after', 'etag']
    const steps: [string, string, Record<string, string>?][] = [
      ['POST', '/v1/pets'],
      ['GET', '/v1/pets'],
    ]
    const seen: string[][] = [[], []]
    for (const [i, { call }] of apps.entries()) {
      const answer = async (method: string, path: string, headers: Record<string, string> = {}) => {
        const body = method === 'POST' ? { name: 'Rex', categoryId: 1 } : undefined
        const response = await call(method, path, { headers, body })
        seen[i]!.push(
          `${method} ${path} ${JSON.stringify(headers)} → ${response.status} ${named.map((name) => `${name}=${response.headers.get(name)}`).join(' ')}`,
        )
        return response
      }
      for (const [method, path] of steps) await answer(method, path)
      const etag = (await answer('GET', '/v1/pets')).headers.get('etag')!
      await answer('GET', '/v1/pets', { 'if-none-match': etag })
      await answer('GET', '/v1/pets', { 'if-none-match': '"stale"' })
      failing.now = true
      await answer('GET', '/v1/pets')
      await answer('GET', '/v1/pets', { 'if-none-match': etag })
      failing.now = false
      await answer('GET', '/v1/pets/9')
      await answer('GET', '/v1/rate_limit')
      for (let n = 0; n < 55; n++) await answer('GET', '/v1/pets/1')
      await answer('GET', '/v1/pets', { 'if-none-match': etag })
      await answer('GET', '/v1/pets')
    }
    expect(seen[1]).toEqual(seen[0]!)
    expect(seen[0]!.filter((line) => / → 304 /.test(line))).toHaveLength(1)
    expect(seen[0]!.filter((line) => / → 500 /.test(line))).toHaveLength(2)
    expect(seen[0]!.filter((line) => / → 429 /.test(line))).toHaveLength(2)
  })
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
