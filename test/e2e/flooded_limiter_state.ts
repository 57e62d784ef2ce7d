// Writes into a SQLite database the limiter state a flood leaves: CALLERS callers without a key today,
// 127.0.0.1 among them with its day used up, saved by a process that stopped. Run in a process of its own
// by limiter_state_test.ts, so the test's heap stays small.
//
//   bun test/e2e/flooded_limiter_state.ts DATABASE CALLERS
import { openDatabase } from '../../src/db/sqlite'
import { PLAN_LIMITS } from '../../src/keys/plans'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { pack } from '../../src/ratelimit/packed_counters'
import { PART_SUBJECTS } from '../../src/ratelimit/snapshot'
import { SqliteLimiterStateStore } from '../../src/ratelimit/sqlite_state_store'
import { DAY_MS, MINUTE_MS } from '../../src/time'

/** The limiter subject of 127.0.0.1, as ratelimit/subject.ts counts an IPv4 address. */
const LOCALHOST = -(0x7f000001 + 1)

/**
 * A database whose saved limiter state is what a flood leaves: `callers`
 * callers without a key today (neighbouring addresses, one request each),
 * 127.0.0.1 among them with its day used up, as a process that counted them
 * wrote it when it stopped (its parts in the order its tables hold them).
 */
function floodedDatabase(path: string, callers: number, now: number): void {
  const limiter = new MemoryRateLimiter({ anonymousMax: 2 * callers })
  const free = PLAN_LIMITS.free
  for (let i = 1; i < callers; i++) limiter.consume(-i, free, now)
  // 127.0.0.1's day used up (earlier today: its minute is free, only the day refuses it).
  const minuteOfDay = Math.floor((now % DAY_MS) / MINUTE_MS)
  const spent = pack({ usedToday: free.rpd, minuteOfDay, usedThisMinute: 0, refusedThisMinute: 0 }, free)
  const empty = { wide: [], text: [], bans: [] }
  limiter.restore(
    { savedAt: now, day: Math.floor(now / DAY_MS), counters: Float64Array.of(LOCALHOST, spent), extra: empty },
    now,
  )
  const db = openDatabase(path)
  const store = new SqliteLimiterStateStore(db)
  store.adopt({ owner: 'flooded', host: 'elsewhere', pid: 1 }, () => false, now)
  let part = 0
  for (const snapshot of limiter.snapshotParts(now, PART_SUBJECTS)) store.write('flooded', 1, part++, snapshot)
  store.complete('flooded', 1, now, true)
  db.close()
}

floodedDatabase(process.argv[2]!, Number(process.argv[3]), Date.now())
