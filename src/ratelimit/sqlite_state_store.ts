import type { Database } from 'bun:sqlite'
import type { LimiterSnapshot, LimiterStateStore, SnapshotExtra } from './snapshot'

interface SnapshotRow {
  saved_at: number
  day: number
  counters: Uint8Array
  extra: string
}

/** The limiter's snapshot in the SQLite file it serves from: one row, replaced at each write. */
export class SqliteLimiterStateStore implements LimiterStateStore {
  constructor(private readonly db: Database) {}

  save({ savedAt, day, counters, extra }: LimiterSnapshot): void {
    this.db
      .query('INSERT OR REPLACE INTO limiter_state (id, saved_at, day, counters, extra) VALUES (1, ?, ?, ?, ?)')
      .run(
        savedAt,
        day,
        new Uint8Array(counters.buffer, counters.byteOffset, counters.byteLength),
        JSON.stringify(extra),
      )
  }

  load(): LimiterSnapshot | undefined {
    const row = this.db
      .query<SnapshotRow, []>('SELECT saved_at, day, counters, extra FROM limiter_state WHERE id = 1')
      .get()
    if (row === null) return undefined
    // Copied, so the float64 view starts aligned whatever SQLite's buffer is.
    const bytes = new Uint8Array(row.counters)
    return {
      savedAt: row.saved_at,
      day: row.day,
      counters: new Float64Array(bytes.buffer, 0, Math.floor(bytes.byteLength / 8)),
      extra: JSON.parse(row.extra) as SnapshotExtra,
    }
  }
}
