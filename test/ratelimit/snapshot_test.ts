import type { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { openDatabase } from '../../src/db/sqlite'
import { createLogger } from '../../src/log'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { keepLimiterState, type LimiterStateStore, type SnapshotOwner } from '../../src/ratelimit/snapshot'
import { SqliteLimiterStateStore } from '../../src/ratelimit/sqlite_state_store'
import { BAN_MS } from '../../src/ratelimit/windows'
import { DAY_MS, MINUTE_MS } from '../../src/time'
import { eventually } from '../helpers'

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

const logger = createLogger('silent')
const host = 'test-host'
/** A process on this host that is gone (no pid reaches that high) or that runs (this one). */
const ended = (name: string): SnapshotOwner => ({ owner: name, host, pid: 5_000_000 })
const running = (name: string): SnapshotOwner => ({ owner: name, host, pid: process.pid })

/** Starts a keeper for a fresh limiter on `db` as `me`, and waits until what it took over is read back. */
async function keeper(db: Database, me: SnapshotOwner, options: { intervalMs?: number; partSize?: number } = {}) {
  const limiter = new MemoryRateLimiter()
  const kept = keepLimiterState(limiter, new SqliteLimiterStateStore(db), {
    clock: () => T0 + 4000,
    logger,
    me,
    intervalMs: options.intervalMs ?? 60_000,
    partSize: options.partSize,
  })
  await kept.loaded
  return { limiter, kept }
}

const owners = (db: Database) =>
  db
    .query<{ owner: string }, []>('SELECT owner FROM limiter_owners ORDER BY owner')
    .all()
    .map((row) => row.owner)

describe('the limiter snapshot', () => {
  test('reads back, through SQLite, exactly what was held, in one part or in many', async () => {
    for (const partSize of [undefined, 2]) {
      const db = openDatabase(':memory:')
      const before = busyLimiter()
      const store = new SqliteLimiterStateStore(db)
      store.adopt(ended('a'), () => false, T0)
      let index = 0
      for (const part of { [Symbol.iterator]: () => before.snapshotParts(T0 + 3000, partSize) })
        store.write('a', 7, index++, part)
      store.complete('a', 7, T0 + 3000, true)
      expect(index).toBe(partSize === undefined ? 1 : 2)
      const { limiter: after } = await keeper(db, running('b'))
      expect(usages(after, T0 + 4000)).toEqual(usages(before, T0 + 4000))
      expect(usages(after, T0 + 4000).map((usage) => usage.usedMinute)).toEqual([40, 7, 5, 1, 60])
      expect(after.peek(3, free, T0 + 4000).banEnd).toBe(T0 + 2000 + BAN_MS)
      expect(after.sizes()).toEqual(before.sizes())
    }
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

  test('reading back adds to what is held: two snapshots of one key are its two counts together', () => {
    const one = new MemoryRateLimiter()
    const other = new MemoryRateLimiter()
    for (let i = 0; i < 10; i++) one.consume(1, free, T0 + 1000)
    for (let i = 0; i < 20; i++) other.consume(1, free, T0 + 1000)
    for (let i = 0; i < 3; i++) other.consume(2, big, T0 + 1000)
    const both = new MemoryRateLimiter()
    both.restore(one.snapshot(T0 + 2000), T0 + 2000)
    both.restore(other.snapshot(T0 + 2000), T0 + 2000)
    both.restore(other.snapshot(T0 + 2000), T0 + 2000)
    expect(both.peek(1, free, T0 + 3000)).toEqual({ usedMinute: 50, usedDay: 50, banEnd: undefined })
    expect(both.peek(2, big, T0 + 3000).usedDay).toBe(6)
  })

  test('the keeper writes only after a change, and a last, stopped snapshot on stop', async () => {
    const db = openDatabase(':memory:')
    const first = await keeper(db, running('first'))
    first.kept.stop()
    expect(db.query('SELECT count(*) AS n FROM limiter_parts').get()).toEqual({ n: 0 })
    const second = await keeper(db, running('second'))
    // "first" stopped without a snapshot: nothing to take over, and its row is gone.
    expect(owners(db)).toEqual(['second'])
    second.limiter.consume(1, free, T0 + 4000)
    second.kept.stop()
    expect(db.query('SELECT owner, stopped FROM limiter_owners').all()).toEqual([{ owner: 'second', stopped: 1 }])
    const third = await keeper(db, running('third'))
    expect(third.limiter.peek(1, free, T0 + 4000).usedMinute).toBe(1)
  })

  test('two processes on one file keep their own: a start takes over only the snapshots of processes that ended', async () => {
    const db = openDatabase(':memory:')
    const a = await keeper(db, running('a'))
    const b = await keeper(db, running('b'), { intervalMs: 5 })
    for (let i = 0; i < 10; i++) a.limiter.consume(1, free, T0 + 4000)
    for (let i = 0; i < 20; i++) b.limiter.consume(2, free, T0 + 4000)
    a.kept.stop()
    // b still runs, and writes on its timer.
    const partsOf = async (owner: string) =>
      db.query<{ n: number }, [string]>('SELECT count(*) AS n FROM limiter_parts WHERE owner = ?').get(owner)!.n
    expect(await eventually(() => partsOf('b'), 1)).toBe(1)
    const c = await keeper(db, running('c'))
    expect(c.limiter.peek(1, free, T0 + 4000).usedDay).toBe(10)
    expect(c.limiter.peek(2, free, T0 + 4000).usedDay).toBe(0)
    b.kept.stop()
    c.kept.stop()
    // b and c ended (stopped): the next start holds what both counted, and a is gone for good (c took it over).
    const d = await keeper(db, running('d'))
    expect(d.limiter.peek(1, free, T0 + 4000).usedDay).toBe(10)
    expect(d.limiter.peek(2, free, T0 + 4000).usedDay).toBe(20)
    d.kept.stop()
    expect(owners(db)).toEqual(['d'])
  })

  test('a process killed before it wrote its own snapshot leaves what it took over to the next start', async () => {
    const db = openDatabase(':memory:')
    const a = await keeper(db, running('a'))
    for (let i = 0; i < 10; i++) a.limiter.consume(1, free, T0 + 4000)
    a.kept.stop()
    // b takes a over, then "dies" (its pid is gone) without writing.
    await keeper(db, ended('b'))
    const c = await keeper(db, running('c'))
    expect(c.limiter.peek(1, free, T0 + 4000).usedDay).toBe(10)
  })

  test('a snapshot is written in parts while requests go on, and is whole when read back', async () => {
    const db = openDatabase(':memory:')
    const a = await keeper(db, running('a'), { intervalMs: 5, partSize: 1000 })
    for (let i = 1; i <= 20_000; i++) a.limiter.consume(-i, free, T0 + 4000)
    const done = async () =>
      db.query<{ n: number }, []>('SELECT count(*) AS n FROM limiter_owners WHERE generation IS NOT NULL').get()!.n
    expect(await eventually(done, 1)).toBe(1)
    expect(db.query('SELECT count(*) AS n FROM limiter_parts').get()).toEqual({ n: 20 })
    a.kept.stop()
    const b = await keeper(db, running('b'), { partSize: 1000 })
    expect(b.limiter.sizes().anonymous).toBe(20_000)
    expect(b.limiter.peek(-20_000, free, T0 + 4000).usedDay).toBe(1)
  })

  test('a write that fails is logged and tried again, and serving goes on', async () => {
    const lines: string[] = []
    const failing: LimiterStateStore = {
      adopt: () => [],
      read: () => undefined,
      write: () => {
        throw new Error('disk full')
      },
      complete: () => {},
    }
    const limiter = new MemoryRateLimiter()
    const kept = keepLimiterState(limiter, failing, {
      clock: () => T0,
      logger: createLogger('warn', (line) => lines.push(line)),
    })
    limiter.consume(1, free, T0)
    kept.stop()
    expect(lines.join('\n')).toContain('disk full')
    expect(limiter.consume(1, free, T0).remaining).toBe(58)
  })
})
