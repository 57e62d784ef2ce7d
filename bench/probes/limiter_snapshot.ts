// What keeping the in-memory limiter across restarts costs: the time to take a snapshot and
// write it to a SQLite file (WAL, synchronous=normal, as the server does), and to read it back,
// for a thousand and a million subjects. Median of 5 rounds, with the range.
//
//   bun bench/probes/limiter_snapshot.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/sqlite'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { SqliteLimiterStateStore } from '../../src/ratelimit/sqlite_state_store'

const free = { rpm: 60, rpd: 1000 }
const now = Date.UTC(2026, 10, 21, 10)
const dir = mkdtempSync(join(tmpdir(), 'limiter-snapshot-'))
const ms = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return `${sorted[2]!.toFixed(2)} ms (${sorted[0]!.toFixed(2)}–${sorted[4]!.toFixed(2)})`
}

try {
  console.log('| subjects | snapshot + write | read back | row size |')
  console.log('|---:|---:|---:|---:|')
  for (const subjects of [1_000, 1_000_000]) {
    const db = openDatabase(join(dir, `${subjects}.sqlite`))
    const store = new SqliteLimiterStateStore(db)
    const limiter = new MemoryRateLimiter()
    // Half keys, half addresses, as a busy server might hold.
    for (let i = 1; i <= subjects; i++) limiter.consume(i % 2 === 0 ? i : -i, free, now)
    const writes: number[] = []
    const reads: number[] = []
    for (let round = 0; round < 5; round++) {
      let started = performance.now()
      store.save(limiter.snapshot(now))
      writes.push(performance.now() - started)
      started = performance.now()
      new MemoryRateLimiter().restore(store.load()!, now)
      reads.push(performance.now() - started)
    }
    const { bytes } = db
      .query<{ bytes: number }, []>('SELECT length(counters) + length(extra) AS bytes FROM limiter_state')
      .get()!
    console.log(
      `| ${subjects.toLocaleString('en')} | ${ms(writes)} | ${ms(reads)} | ${(bytes / 1024).toFixed(0)} KiB |`,
    )
    db.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
