import { describe, expect, test } from 'bun:test'
import type { Limits } from '../../src/keys/plans'
import type { RateLimiter } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { MINUTE_MS } from '../../src/time'
import { cleanupsAfterEach } from '../helpers'
import { redisTestLimiter, SHARED_STORES } from '../shared_services'

const small: Limits = { rpm: 3, rpd: 10 }
// Redis expires a window's keys at its end (PEXPIREAT): the test clock must be ahead of Redis's.
const T0 = Date.UTC(2099, 10, 21, 10, 0, 0)
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
      expect(await limiter.peek(1, small, now)).toEqual({ usedMinute: 0, usedDay: 0, banEnd: undefined })
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
