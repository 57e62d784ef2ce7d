import { describe, expect, test } from 'bun:test'
import { openDatabase } from '../../src/db/sqlite'
import { createLogger } from '../../src/log'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { keepLimiterState, type LimiterSnapshot, type LimiterStateStore } from '../../src/ratelimit/snapshot'
import { SqliteLimiterStateStore } from '../../src/ratelimit/sqlite_state_store'
import { BAN_MS } from '../../src/ratelimit/windows'
import { DAY_MS, MINUTE_MS } from '../../src/time'

const free = { rpm: 60, rpd: 1000 }
const big = { rpm: 5000, rpd: 5_000_000 }
const T0 = Date.UTC(2026, 10, 21, 10, 0, 0)

/** A limiter with a bit of everything: keys, addresses, a text subject, wide counters, a ban. */
function busyLimiter(): MemoryRateLimiter {
  const limiter = new MemoryRateLimiter()
  for (let i = 0; i < 40; i++) limiter.consume(1, free, T0 + 1000)
  for (let i = 0; i < 7; i++) limiter.consume(2, big, T0 + 1000)
  for (let i = 0; i < 5; i++) limiter.consume(-10, free, T0 + 1000)
  limiter.consume('ip:unknown', free, T0 + 1000)
  for (let i = 0; i < 121; i++) limiter.consume(3, free, T0 + 2000)
  return limiter
}

const usages = (limiter: MemoryRateLimiter, now: number) =>
  [1, 2, -10, 'ip:unknown', 3].map((subject) => limiter.peek(subject, subject === 2 ? big : free, now))

describe('the limiter snapshot', () => {
  test('reads back, through SQLite, exactly what was held', () => {
    const db = openDatabase(':memory:')
    const store = new SqliteLimiterStateStore(db)
    const before = busyLimiter()
    store.save(before.snapshot(T0 + 3000))
    const after = new MemoryRateLimiter()
    after.restore(store.load()!, T0 + 4000)
    expect(usages(after, T0 + 4000)).toEqual(usages(before, T0 + 4000))
    expect(usages(after, T0 + 4000).map((usage) => usage.usedMinute)).toEqual([40, 7, 5, 1, 60])
    expect(after.peek(3, free, T0 + 4000).banEnd).toBe(T0 + 2000 + BAN_MS)
    expect(after.sizes()).toEqual(before.sizes())
  })

  test('a later minute keeps the day; a later day keeps only bans that have not ended', () => {
    const snapshot = busyLimiter().snapshot(T0 + 3000)
    const nextMinute = new MemoryRateLimiter()
    nextMinute.restore(snapshot, T0 + MINUTE_MS)
    expect(nextMinute.peek(1, free, T0 + MINUTE_MS)).toEqual({ usedMinute: 0, usedDay: 40, banEnd: undefined })
    const nextDay = new MemoryRateLimiter()
    const midnight = Math.ceil(T0 / DAY_MS) * DAY_MS
    nextDay.restore(snapshot, midnight + 1000)
    expect(nextDay.peek(1, free, midnight + 1000).usedDay).toBe(0)
    const afterBan = new MemoryRateLimiter()
    afterBan.restore(snapshot, T0 + 2000 + BAN_MS)
    expect(afterBan.sizes().banned).toBe(0)
  })

  test('the keeper reads back at start, writes only after a change, and once more on stop', () => {
    const saved: LimiterSnapshot[] = []
    const store: LimiterStateStore = { save: (snapshot) => saved.push(snapshot), load: () => saved.at(-1) }
    const logger = createLogger('silent')
    const first = new MemoryRateLimiter()
    const keeper = keepLimiterState(first, store, { clock: () => T0, logger, intervalMs: 60_000 })
    keeper.stop()
    expect(saved.length).toBe(0)
    const again = keepLimiterState(first, store, { clock: () => T0, logger, intervalMs: 60_000 })
    first.consume(1, free, T0)
    again.stop()
    expect(saved.length).toBe(1)
    const second = new MemoryRateLimiter()
    keepLimiterState(second, store, { clock: () => T0 + 5, logger, intervalMs: 60_000 }).stop()
    expect(second.peek(1, free, T0 + 5).usedMinute).toBe(1)
  })

  test('a write that fails is logged and tried again, and serving goes on', () => {
    const lines: string[] = []
    const logger = createLogger('warn', (line) => lines.push(line))
    const failing: LimiterStateStore = {
      save: () => {
        throw new Error('disk full')
      },
      load: () => undefined,
    }
    const limiter = new MemoryRateLimiter()
    const keeper = keepLimiterState(limiter, failing, { clock: () => T0, logger })
    limiter.consume(1, free, T0)
    keeper.stop()
    expect(lines.join('\n')).toContain('disk full')
    expect(limiter.consume(1, free, T0).remaining).toBe(58)
  })
})
