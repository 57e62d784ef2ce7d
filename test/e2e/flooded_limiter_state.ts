// Writes into a SQLite database the limiter state a flood leaves: CALLERS callers without a key today,
// 127.0.0.1 among them with its day used up, saved by a process that stopped. Run in a process of its own
// by limiter_state_test.ts, so the test's heap stays small.
//
//   bun test/e2e/flooded_limiter_state.ts DATABASE CALLERS
import { openDatabase } from '../../src/db/sqlite'
import { PLAN_LIMITS } from '../../src/keys/plans'
import { pack } from '../../src/ratelimit/packed_counters'
import { PART_SUBJECTS } from '../../src/ratelimit/snapshot'
import { SqliteLimiterStateStore } from '../../src/ratelimit/sqlite_state_store'
import { DAY_MS, MINUTE_MS } from '../../src/time'

/** The limiter subject of 127.0.0.1, as ratelimit/subject.ts counts an IPv4 address. */
const LOCALHOST = -(0x7f000001 + 1)

/**
 * A database whose saved limiter state is what a flood leaves: `callers`
 * callers without a key today, 127.0.0.1 among them with its day used up, as
 * a process that stopped wrote it.
 */
function floodedDatabase(path: string, callers: number, now: number): void {
  const db = openDatabase(path)
  const store = new SqliteLimiterStateStore(db)
  store.adopt({ owner: 'flooded', host: 'elsewhere', pid: 1 }, () => false, now)
  const minuteOfDay = Math.floor((now % DAY_MS) / MINUTE_MS)
  const one = pack({ usedToday: 1, minuteOfDay, usedThisMinute: 1, refusedThisMinute: 0 }, PLAN_LIMITS.free)
  const spent = pack({ usedToday: 1000, minuteOfDay, usedThisMinute: 0, refusedThisMinute: 0 }, PLAN_LIMITS.free)
  const empty = { wide: [], text: [], bans: [] }
  for (let part = 0, first = 0; first < callers; part++, first += PART_SUBJECTS) {
    const count = Math.min(PART_SUBJECTS, callers - first)
    const counters = new Float64Array(2 * count)
    for (let i = 0; i < count; i++) {
      const subject = first + i === 0 ? LOCALHOST : -(first + i)
      counters[2 * i] = subject
      counters[2 * i + 1] = subject === LOCALHOST ? spent : one
    }
    store.write('flooded', 1, part, { savedAt: now, day: Math.floor(now / DAY_MS), counters, extra: empty })
  }
  store.complete('flooded', 1, now, true)
  db.close()
}

floodedDatabase(process.argv[2]!, Number(process.argv[3]), Date.now())
