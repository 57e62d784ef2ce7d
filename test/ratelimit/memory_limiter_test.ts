import { describe, expect, test } from 'bun:test'
import type { Subject } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { BAN_MS } from '../../src/ratelimit/windows'
import { DAY_MS, MINUTE_MS } from '../../src/time'

const free = { rpm: 60, rpd: 1000 }
// 2026-11-21T10:00:00Z: a minute boundary, far from midnight.
const T0 = Date.UTC(2026, 10, 21, 10, 0, 0)
const MIDNIGHT = Date.UTC(2026, 10, 22)
// A key's subject (its id); strings and negative numbers are callers without a key.
const KEY = 1

function drain(
  limiter: MemoryRateLimiter,
  subject: Subject,
  limits: { rpm: number; rpd: number },
  count: number,
  at: number,
) {
  const decisions = []
  for (let i = 0; i < count; i++) decisions.push(limiter.consume(subject, limits, at))
  return decisions
}

describe('MemoryRateLimiter, the minute window', () => {
  test('allows the 60th request at 59.999 s and refuses the 61st', () => {
    const limiter = new MemoryRateLimiter()
    drain(limiter, 'k', free, 59, T0)
    const sixtieth = limiter.consume('k', free, T0 + 59_999)
    expect(sixtieth).toEqual({
      refusal: undefined,
      window: 'minute',
      limit: 60,
      used: 60,
      remaining: 0,
      reset: (T0 + MINUTE_MS) / 1000,
      resetAfter: 1,
      retryAfter: 0,
      limits: free,
    })
    const sixtyFirst = limiter.consume('k', free, T0 + 59_999)
    expect(sixtyFirst).toEqual({
      refusal: 'rate_limit_exceeded',
      window: 'minute',
      limit: 60,
      used: 60,
      remaining: 0,
      reset: (T0 + MINUTE_MS) / 1000,
      resetAfter: 1,
      retryAfter: 1,
      limits: free,
    })
  })

  test('starts afresh with the first request of the next minute', () => {
    const limiter = new MemoryRateLimiter()
    drain(limiter, 'k', free, 61, T0)
    expect(limiter.consume('k', free, T0 + MINUTE_MS)).toMatchObject({
      refusal: undefined,
      remaining: 59,
      reset: (T0 + 2 * MINUTE_MS) / 1000,
    })
  })

  test('counts down Remaining one by one within the window', () => {
    const limiter = new MemoryRateLimiter()
    expect(drain(limiter, 'k', free, 5, T0 + 1000).map((d) => d.remaining)).toEqual([59, 58, 57, 56, 55])
  })

  test.each([
    [0, 60],
    [1, 60],
    [1000, 59],
    [30_000, 30],
    [59_001, 1],
    [59_999, 1],
  ])('Retry-After %i ms into the minute is %i s, rounded up so a retry then succeeds', (offset, seconds) => {
    const limiter = new MemoryRateLimiter()
    drain(limiter, 'k', { rpm: 1, rpd: 100 }, 1, T0 + offset)
    expect(limiter.consume('k', { rpm: 1, rpd: 100 }, T0 + offset).retryAfter).toBe(seconds)
  })

  test('keeps subjects apart', () => {
    const limiter = new MemoryRateLimiter()
    drain(limiter, 'a', free, 60, T0)
    expect(limiter.consume('a', free, T0).refusal).toBe('rate_limit_exceeded')
    expect(limiter.consume('b', free, T0).refusal).toBeUndefined()
  })

  test('describes the minute on a tie', () => {
    const limiter = new MemoryRateLimiter()
    expect(limiter.consume('k', { rpm: 10, rpd: 10 }, T0)).toMatchObject({ window: 'minute', limit: 10, remaining: 9 })
  })

  test('does not reset when the clock steps back into an earlier minute', () => {
    const limiter = new MemoryRateLimiter()
    drain(limiter, 'k', free, 60, T0 + MINUTE_MS)
    expect(limiter.consume('k', free, T0 + 30_000).refusal).toBe('rate_limit_exceeded')
  })
})

describe('MemoryRateLimiter, the day window', () => {
  test('takes over the headers when it has fewer requests left than the minute', () => {
    const limiter = new MemoryRateLimiter()
    const limits = { rpm: 60, rpd: 100 }
    drain(limiter, 'k', limits, 60, T0)
    drain(limiter, 'k', limits, 20, T0 + MINUTE_MS)
    // 80 used today (20 left), 20 this minute (40 left): the day describes.
    expect(limiter.consume('k', limits, T0 + MINUTE_MS)).toEqual({
      refusal: undefined,
      window: 'day',
      limit: 100,
      used: 81,
      remaining: 19,
      reset: MIDNIGHT / 1000,
      resetAfter: (MIDNIGHT - T0 - MINUTE_MS) / 1000,
      limits,
      retryAfter: 0,
    })
  })

  test('refuses until the next UTC midnight once spent', () => {
    const limiter = new MemoryRateLimiter()
    const limits = { rpm: 60, rpd: 100 }
    drain(limiter, 'k', limits, 60, T0)
    drain(limiter, 'k', limits, 40, T0 + MINUTE_MS)
    const refusal = limiter.consume('k', limits, T0 + 2 * MINUTE_MS)
    expect(refusal).toMatchObject({
      refusal: 'rate_limit_exceeded',
      window: 'day',
      limit: 100,
      remaining: 0,
      reset: MIDNIGHT / 1000,
    })
    expect(refusal.retryAfter).toBe((MIDNIGHT - T0 - 2 * MINUTE_MS) / 1000)
  })

  test('resets at UTC midnight exactly', () => {
    const limiter = new MemoryRateLimiter()
    const limits = { rpm: 10, rpd: 10 }
    drain(limiter, 'k', limits, 10, MIDNIGHT - 500)
    const before = limiter.consume('k', limits, MIDNIGHT - 1)
    expect(before).toMatchObject({ refusal: 'rate_limit_exceeded', retryAfter: 1 })
    expect(limiter.consume('k', limits, MIDNIGHT)).toMatchObject({ refusal: undefined, remaining: 9 })
  })

  test('does not count refused requests', () => {
    const limiter = new MemoryRateLimiter()
    const limits = { rpm: 10, rpd: 25 }
    drain(limiter, 'k', limits, 10, T0)
    drain(limiter, 'k', limits, 10, T0) // ten refusals: no ban (not more than rpm), no quota spent
    drain(limiter, 'k', limits, 10, T0 + MINUTE_MS)
    expect(limiter.consume('k', limits, T0 + 2 * MINUTE_MS)).toMatchObject({
      refusal: undefined,
      window: 'day',
      remaining: 4,
    })
  })
})

describe('MemoryRateLimiter, bans', () => {
  test('bans for 15 minutes once refusals in one minute outnumber the per-minute limit', () => {
    const limiter = new MemoryRateLimiter()
    const limits = { rpm: 5, rpd: 1000 }
    drain(limiter, 'k', limits, 5, T0)
    const refusals = drain(limiter, 'k', limits, 5, T0 + 1000)
    expect(refusals.every((d) => d.refusal === 'rate_limit_exceeded')).toBe(true)
    const tipping = limiter.consume('k', limits, T0 + 2000)
    expect(tipping).toEqual({
      refusal: 'key_banned',
      window: 'ban',
      limit: 5,
      used: 5,
      remaining: 0,
      reset: (T0 + 2000 + BAN_MS) / 1000,
      resetAfter: BAN_MS / 1000,
      retryAfter: BAN_MS / 1000,
      limits,
    })
  })

  test('keeps refusing through the ban with Retry-After counting down, then lifts it', () => {
    const limiter = new MemoryRateLimiter()
    const limits = { rpm: 5, rpd: 1000 }
    drain(limiter, 'k', limits, 11, T0)
    const banEnd = T0 + BAN_MS
    expect(limiter.consume('k', limits, T0 + 5 * MINUTE_MS)).toMatchObject({ refusal: 'key_banned', retryAfter: 600 })
    expect(limiter.consume('k', limits, banEnd - 1)).toMatchObject({ refusal: 'key_banned', retryAfter: 1 })
    expect(limiter.consume('k', limits, banEnd)).toMatchObject({ refusal: undefined, remaining: 4 })
    expect(limiter.sizes().banned).toBe(0)
  })

  test('does not ban a subject whose refusals stay within the limit', () => {
    const limiter = new MemoryRateLimiter()
    const limits = { rpm: 5, rpd: 1000 }
    drain(limiter, 'k', limits, 10, T0)
    drain(limiter, 'k', limits, 5, T0 + MINUTE_MS) // a new minute: five allowed
    expect(limiter.consume('k', limits, T0 + MINUTE_MS).refusal).toBe('rate_limit_exceeded')
  })

  test('bans one subject without touching another', () => {
    const limiter = new MemoryRateLimiter()
    drain(limiter, 'a', { rpm: 1, rpd: 10 }, 3, T0)
    expect(limiter.consume('a', { rpm: 1, rpd: 10 }, T0).refusal).toBe('key_banned')
    expect(limiter.consume('b', { rpm: 1, rpd: 10 }, T0).refusal).toBeUndefined()
  })
})

describe('MemoryRateLimiter, plan changes', () => {
  test('applies new limits on the next request, keeping the counts', () => {
    const limiter = new MemoryRateLimiter()
    drain(limiter, 'k', free, 60, T0)
    expect(limiter.consume('k', free, T0).refusal).toBe('rate_limit_exceeded')
    expect(limiter.consume('k', { rpm: 300, rpd: 10_000 }, T0)).toMatchObject({
      refusal: undefined,
      limit: 300,
      remaining: 239,
    })
  })
})

describe('MemoryRateLimiter, plan changes across the packed limits', () => {
  test('keeps the counts when a key moves to large custom limits and back', () => {
    const limiter = new MemoryRateLimiter()
    const big = { rpm: 5000, rpd: 5_000_000 }
    drain(limiter, KEY, free, 50, T0)
    expect(limiter.consume(KEY, big, T0)).toMatchObject({ refusal: undefined, limit: 5000, remaining: 4949 })
    drain(limiter, KEY, big, 100, T0)
    // Back on Free with 151 used this minute: blocked, and Remaining stays at 0.
    expect(limiter.consume(KEY, free, T0)).toMatchObject({ refusal: 'rate_limit_exceeded', remaining: 0 })
    expect(limiter.consume(KEY, free, T0 + MINUTE_MS)).toMatchObject({ refusal: undefined, remaining: 59 })
    expect(limiter.sizes().today).toBe(1)
  })

  test('counts past 2^11 a minute and 2^20 a day with large limits', () => {
    const limiter = new MemoryRateLimiter()
    const big = { rpm: 10_000, rpd: 2_000_000 }
    expect(drain(limiter, 'k', big, 3000, T0).at(-1)).toMatchObject({
      refusal: undefined,
      limit: 10_000,
      remaining: 7000,
    })
  })
})

describe('MemoryRateLimiter, memory', () => {
  test('a million distinct subjects across windows leave only the current day in memory', () => {
    const limiter = new MemoryRateLimiter()
    const perMinute = 250_000
    // Four minutes, the last one past UTC midnight, a quarter of a million subjects each.
    const minutes = [MIDNIGHT - 3 * MINUTE_MS, MIDNIGHT - 2 * MINUTE_MS, MIDNIGHT - MINUTE_MS, MIDNIGHT]
    minutes.forEach((start, m) => {
      for (let i = 0; i < perMinute; i++) limiter.consume(-(m * perMinute + i) - 1, free, start + (i % MINUTE_MS))
      // Before midnight the day holds every subject so far; after it only the new day's.
      expect(limiter.sizes().today).toBe(m < 3 ? perMinute * (m + 1) : perMinute)
    })
    limiter.consume('late', free, MIDNIGHT + MINUTE_MS)
    expect(limiter.sizes()).toEqual({ today: perMinute + 1, anonymous: perMinute + 1, banned: 0 })
    limiter.consume('later', free, MIDNIGHT + DAY_MS)
    expect(limiter.sizes()).toEqual({ today: 1, anonymous: 1, banned: 0 })
  })
})

describe('MemoryRateLimiter, callers without a key', () => {
  test('holds at most ANON_SUBJECTS_MAX of them, while keys are never forgotten', () => {
    const limiter = new MemoryRateLimiter({ anonymousMax: 1000 })
    limiter.consume(KEY, free, T0)
    for (let i = 0; i < 50_000; i++) limiter.consume(-i - 1, free, T0 + (i % 1000))
    expect(limiter.sizes().anonymous).toBeLessThanOrEqual(1000)
    expect(limiter.peek(KEY, free, T0 + 2000).usedDay).toBe(1)
  })

  test('never forgets a blocked caller or a ban before it ends, whatever the flood', () => {
    const limiter = new MemoryRateLimiter({ anonymousMax: 1000 })
    drain(limiter, -7, free, 60, T0)
    drain(limiter, -8, free, 121, T0)
    for (let i = 0; i < 50_000; i++) limiter.consume(-1000 - i, free, T0 + 1000)
    expect(limiter.consume(-7, free, T0 + 2000).refusal).toBe('rate_limit_exceeded')
    expect(limiter.consume(-8, free, T0 + 2000).refusal).toBe('key_banned')
  })
})
