// What keeping the in-memory limiter across restarts costs: the snapshot written whole (as on a
// graceful stop) and written in parts (as the server does every 5 s while serving), with the
// longest pause of the event loop a part causes, and the read back part by part (as a start
// does). A thousand and a million subjects; median of 5 rounds, with the range.
//
//   bun bench/probes/limiter_snapshot.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/sqlite'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { PART_SUBJECTS } from '../../src/ratelimit/snapshot'
import { SqliteLimiterStateStore } from '../../src/ratelimit/sqlite_state_store'

const free = { rpm: 60, rpd: 1000 }
const now = Date.UTC(2026, 10, 21, 10)
const dir = mkdtempSync(join(tmpdir(), 'limiter-snapshot-'))
const ms = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return `${sorted[2]!.toFixed(2)} ms (${sorted[0]!.toFixed(2)}–${sorted[4]!.toFixed(2)})`
}

/** Writes the limiter's snapshot as generation `generation`; returns the whole time and the longest part. */
function write(store: SqliteLimiterStateStore, limiter: MemoryRateLimiter, generation: number, partSize?: number) {
  let longest = 0
  const started = performance.now()
  const parts = limiter.snapshotParts(now, partSize)
  let index = 0
  for (let step = performance.now(), next = parts.next(); !next.done; next = parts.next()) {
    store.write('probe', generation, index++, next.value)
    longest = Math.max(longest, performance.now() - step)
    step = performance.now()
  }
  store.complete('probe', generation, now, false)
  return { whole: performance.now() - started, longest }
}

try {
  console.log(
    `| subjects | written whole | in parts of ${PART_SUBJECTS.toLocaleString('en')}: longest part | read back: longest part | size |`,
  )
  console.log('|---:|---:|---:|---:|---:|')
  for (const subjects of [1_000, 1_000_000]) {
    const db = openDatabase(join(dir, `${subjects}.sqlite`))
    const store = new SqliteLimiterStateStore(db)
    store.adopt({ owner: 'probe', host: 'probe', pid: 0 }, () => false, now)
    const limiter = new MemoryRateLimiter()
    // A hundred keys, and the rest callers without a key, as a flood of distinct addresses leaves it.
    for (let i = 1; i <= subjects; i++) limiter.consume(i <= 100 ? i : -i, free, now)
    const wholes: number[] = []
    const parts: number[] = []
    const reads: number[] = []
    for (let round = 0; round < 5; round++) {
      wholes.push(write(store, limiter, 2 * round, undefined).whole)
      parts.push(write(store, limiter, 2 * round + 1, PART_SUBJECTS).longest)
      const fresh = new MemoryRateLimiter()
      let longest = 0
      for (let part = 0; ; part++) {
        const started = performance.now()
        const snapshot = store.read({ owner: 'probe', generation: 2 * round + 1, part })
        if (snapshot === undefined) break
        fresh.restore(snapshot, now)
        longest = Math.max(longest, performance.now() - started)
      }
      reads.push(longest)
    }
    const { bytes } = db
      .query<{ bytes: number }, []>('SELECT sum(length(counters) + length(extra)) AS bytes FROM limiter_parts')
      .get()!
    console.log(
      `| ${subjects.toLocaleString('en')} | ${ms(wholes)} | ${ms(parts)} | ${ms(reads)} | ${(bytes / 1024).toFixed(0)} KiB |`,
    )
    db.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
