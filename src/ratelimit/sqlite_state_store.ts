import type { Database } from 'bun:sqlite'
import type {
  LimiterSnapshot,
  LimiterStateStore,
  OwnerRecord,
  SnapshotExtra,
  SnapshotOwner,
  StoredPart,
} from './snapshot'

interface OwnerRow {
  owner: string
  host: string
  pid: number
  generation: number | null
  seen_at: number
  stopped: number
  adopted_by: string | null
}

interface PartRow {
  day: number
  counters: Uint8Array
  extra: string
}

/**
 * The limiter's snapshots in the SQLite file the server serves from: one
 * `limiter_owners` row per serving process, and its snapshot's parts in
 * `limiter_parts`. Each write of a part is its own short transaction;
 * completing a snapshot, and taking over another owner's, are one each.
 */
export class SqliteLimiterStateStore implements LimiterStateStore {
  constructor(private readonly db: Database) {}

  adopt(me: SnapshotOwner, gone: (owner: OwnerRecord) => boolean, now: number): StoredPart[] {
    // IMMEDIATE: two processes starting at once never both take over one snapshot.
    return this.db
      .transaction((): StoredPart[] => {
        this.db
          .query('INSERT INTO limiter_owners (owner, host, pid, seen_at) VALUES (?, ?, ?, ?)')
          .run(me.owner, me.host, me.pid, now)
        const owners = this.db.query<OwnerRow, []>('SELECT * FROM limiter_owners').all()
        const byName = new Map(owners.map((row) => [row.owner, row]))
        const ended = (row: OwnerRow) =>
          row.owner !== me.owner &&
          gone({ owner: row.owner, host: row.host, pid: row.pid, seenAt: row.seen_at, stopped: row.stopped === 1 })
        // An owner taken over by one that ended before it completed a snapshot of its own is free again.
        const free = (row: OwnerRow) => {
          const adopter = row.adopted_by === null ? undefined : byName.get(row.adopted_by)
          return adopter === undefined || ended(adopter)
        }
        const parts: StoredPart[] = []
        for (const row of owners) {
          if (!ended(row) || !free(row)) continue
          if (row.generation === null) {
            // It ended before it wrote anything: nothing to take over.
            this.db.query('DELETE FROM limiter_parts WHERE owner = ?').run(row.owner)
            this.db.query('DELETE FROM limiter_owners WHERE owner = ?').run(row.owner)
            continue
          }
          this.db.query('UPDATE limiter_owners SET adopted_by = ? WHERE owner = ?').run(me.owner, row.owner)
          for (const { part } of this.db
            .query<{ part: number }, [string, number]>(
              'SELECT part FROM limiter_parts WHERE owner = ? AND generation = ? ORDER BY part',
            )
            .all(row.owner, row.generation))
            parts.push({ owner: row.owner, generation: row.generation, part })
        }
        return parts
      })
      .immediate()
  }

  read({ owner, generation, part }: StoredPart): LimiterSnapshot | undefined {
    const row = this.db
      .query<PartRow, [string, number, number]>(
        'SELECT day, counters, extra FROM limiter_parts WHERE owner = ? AND generation = ? AND part = ?',
      )
      .get(owner, generation, part)
    if (row === null) return undefined
    // Copied, so the float64 view starts aligned whatever SQLite's buffer is.
    const bytes = new Uint8Array(row.counters)
    return {
      savedAt: 0,
      day: row.day,
      counters: new Float64Array(bytes.buffer, 0, Math.floor(bytes.byteLength / 8)),
      extra: JSON.parse(row.extra) as SnapshotExtra,
    }
  }

  write(owner: string, generation: number, part: number, { day, counters, extra }: LimiterSnapshot): void {
    this.db
      .query(
        'INSERT OR REPLACE INTO limiter_parts (owner, generation, part, day, counters, extra) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        owner,
        generation,
        part,
        day,
        new Uint8Array(counters.buffer, counters.byteOffset, counters.byteLength),
        JSON.stringify(extra),
      )
  }

  complete(owner: string, generation: number | null, now: number, stopped: boolean): void {
    this.db
      .transaction(() => {
        this.db
          .query('UPDATE limiter_owners SET generation = ?, seen_at = ?, stopped = ? WHERE owner = ?')
          .run(generation, now, stopped ? 1 : 0, owner)
        this.db.query('DELETE FROM limiter_parts WHERE owner = ? AND generation IS NOT ?').run(owner, generation)
        this.db
          .query('DELETE FROM limiter_parts WHERE owner IN (SELECT owner FROM limiter_owners WHERE adopted_by = ?)')
          .run(owner)
        this.db.query('DELETE FROM limiter_owners WHERE adopted_by = ?').run(owner)
      })
      .immediate()
  }
}
