import { describe, expect, test } from 'bun:test'
import type { Limits } from '../../src/keys/plans'
import type { RateLimiter } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { MINUTE_MS } from '../../src/time'
import { cleanupsAfterEach, FUTURE_MINUTE } from '../helpers'
import { redisTestLimiter, SHARED_STORES } from '../shared_services'

const small: Limits = { rpm: 3, rpd: 10 }
const T0 = FUTURE_MINUTE
const cleanups = cleanupsAfterEach()

/** Bans subject 1 under `small`: 3 counted, then 4 refusals. Returns the time it is banned at. */
async function ban(limiter: RateLimiter, now: number): Promise<number> {
  for (let i = 0; i < 7; i++) await limiter.consume(1, small, now)
  expect((await limiter.consume(1, small, now)).refusal).toBe('key_banned')
  return now
}

const LIMITERS: { name: string; skip: boolean; make(): Promise<RateLimiter> }[] = [
  { name: 'MemoryRateLimiter', skip: false, make: async () => new MemoryRateLimiter() },
  {
    name: 'RedisRateLimiter',
    skip: !SHARED_STORES,
    make: async () => (await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)).limiter,
  },
]

for (const { name, skip, make } of LIMITERS)
  describe.skipIf(skip)(`${name}.reset`, () => {
    test('lifts a ban and clears the minute, the day and the minute refusals of one subject only', async () => {
      const limiter = await make()
      const now = await ban(limiter, T0 + 5 * MINUTE_MS)
      await limiter.consume(2, small, now)
      await limiter.reset(1, '1@a', now)
      expect(await limiter.peek(1, small, now)).toMatchObject({ usedMinute: 0, usedDay: 0, banEnd: undefined })
      expect((await limiter.peek(2, small, now))?.usedDay).toBe(1)
      // A full minute again, and refusals start from nothing: no instant re-ban.
      for (let i = 0; i < 3; i++) expect((await limiter.consume(1, small, now)).refusal).toBeUndefined()
      expect((await limiter.consume(1, small, now)).refusal).toBe('rate_limit_exceeded')
    })
  })

describe.skipIf(!SHARED_STORES)('RedisRateLimiter.reset, from several instances', () => {
  test('applies one named reset once: instances told later clear nothing counted since', async () => {
    const first = (await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)).limiter
    const now = await ban(first, T0 + 7 * MINUTE_MS)
    await first.reset(1, '1@2099-11-21T10:07:00.000Z', now)
    await first.consume(1, small, now)
    // The same reset, as another instance (or the CLI) hears of it later: nothing changes.
    await first.reset(1, '1@2099-11-21T10:07:00.000Z', now + 500)
    expect((await first.peek(1, small, now + 500))?.usedMinute).toBe(1)
    // A new unban is a new name, and applies.
    await first.reset(1, '1@2099-11-21T10:07:30.000Z', now + 1000)
    expect((await first.peek(1, small, now + 1000))?.usedMinute).toBe(0)
  })
})

describe.skipIf(!SHARED_STORES)('RedisRateLimiter: a ban Redis answered is kept', () => {
  test('a banned key is refused at once, without asking Redis, until its reset', async () => {
    const { limiter } = await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)
    const now = await ban(limiter, T0 + 11 * MINUTE_MS)
    const refused = limiter.consume(1, small, now + 1000)
    // An answer, not a promise: Redis was not asked.
    expect(refused).not.toBeInstanceOf(Promise)
    // What Redis would have answered: the in-memory limiter's answer after the same requests.
    const memory = new MemoryRateLimiter()
    await ban(memory, now)
    expect(refused).toEqual(memory.consume(1, small, now + 1000))
    await limiter.reset(1, '1@2099-11-21T10:11:00.000Z', now + 2000)
    const after = limiter.consume(1, small, now + 2000)
    expect(after).toBeInstanceOf(Promise)
    expect((await after).refusal).toBeUndefined()
  })

  test('a ban answered to a call sent before a reset is not kept', async () => {
    const { limiter, prefix } = await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)
    const now = await ban(limiter, T0 + 12 * MINUTE_MS)
    // A second instance on the same Redis: its call, sent before its reset, is answered with the ban.
    const { limiter: other } = await redisTestLimiter({ timeoutMs: 10_000, prefix }, cleanups)
    const inFlight = other.consume(1, small, now + 1000)
    const reset = other.reset(1, '1@2099-11-21T10:12:00.000Z', now + 1000)
    expect((await inFlight).refusal).toBe('key_banned')
    await reset
    expect((await other.consume(1, small, now + 1000)).refusal).toBeUndefined()
  })

  test('a ban ends when Redis said it ends', async () => {
    const { limiter } = await redisTestLimiter({ timeoutMs: 10_000 }, cleanups)
    const now = await ban(limiter, T0 + 13 * MINUTE_MS)
    const { retryAfter } = (await limiter.consume(1, small, now)) as { retryAfter: number }
    expect(limiter.consume(1, small, now + retryAfter * 1000 - 1000)).not.toBeInstanceOf(Promise)
    expect((await limiter.consume(1, small, now + retryAfter * 1000)).refusal).toBeUndefined()
  })
})
