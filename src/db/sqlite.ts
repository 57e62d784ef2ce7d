import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Synchronous } from '../config'
import { type Migration, refuseNewerSchema } from './migration'
import { sqliteMigrations } from './sqlite_migrations'
import { markOpen, refuseForeignWal } from './wal_ownership'

/** How long a command's statement waits for another connection's write lock (the server's, say) before failing. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000

/**
 * How long the server's statements wait for a lock another process holds:
 * the wait blocks the event loop (bun:sqlite is synchronous), so it is kept
 * short and a batch of creates tries again on a timer instead
 * (pets/sqlite_store.ts).
 */
export const SERVER_BUSY_TIMEOUT_MS = 10

/** How to open the database: the durability, the lock wait once open, and whether a server will serve it. */
export interface OpenOptions {
  synchronous?: Synchronous
  busyTimeoutMs?: number
  /**
   * A server's start: the file must be sound (PRAGMA quick_check) and
   * writable (a write probe), or opening throws; a command opens a database
   * it cannot write, to read it.
   */
  serving?: boolean
}

/** A database whose pages fail SQLite's check: never served. */
export class DamagedDatabaseError extends Error {
  override name = 'DamagedDatabaseError'
  constructor(path: string, problem: string) {
    super(
      `"${path}" is damaged (PRAGMA quick_check: ${problem}); restore a backup (docs/operations.md, "Storage, backup and restore")`,
    )
  }
}

/**
 * Opens (creating if needed) the SQLite database at `path`, in WAL mode,
 * migrated to the current schema. `:memory:` gives a private database for
 * tests. Nothing is written to a file that is refused: a log that is not its
 * own beside it (ForeignWalError), a newer build's schema
 * (NewerSchemaError), damage found when serving (DamagedDatabaseError).
 */
export function openDatabase(
  path: string,
  { synchronous = 'full', busyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS, serving = false }: OpenOptions = {},
): Database {
  const inFile = path !== ':memory:'
  if (inFile) {
    mkdirSync(dirname(path), { recursive: true })
    refuseForeignWal(path)
  }
  const db = new Database(path, { create: true, strict: true })
  try {
    db.exec(`PRAGMA synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
    // The CLI and the server write the same file; wait for each other instead of failing.
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`)
    refuseNewerSchema(schemaVersion(db), sqliteMigrations)
    const problem = serving ? firstIntegrityProblem(db) : undefined
    if (problem !== undefined) throw new DamagedDatabaseError(path, problem)
    if (!inFile || startWriting(db, serving)) db.exec('PRAGMA journal_mode = WAL')
    migrateSqlite(db, sqliteMigrations)
    // Set after the migrations, which may wait for another process starting on the same file.
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

/**
 * Marks the file open before it enters WAL mode (db/wal_ownership.ts), and
 * tells whether it may: a server requires it (always writing, so a read-only
 * or full disk stops it at start); a command that cannot write reads the file
 * as it is.
 */
function startWriting(db: Database, serving: boolean): boolean {
  try {
    markOpen(db, { always: serving })
    return true
  } catch (error) {
    if (serving) throw error
    return false
  }
}

function schemaVersion(db: Database): number {
  return (db.query('PRAGMA user_version').get() as { user_version: number }).user_version
}

/**
 * Applies the migrations above the database's `user_version`, each in its own
 * transaction with the version bump, so running it twice changes nothing; a
 * `user_version` above the last migration is refused (NewerSchemaError).
 * Returns the versions it applied.
 */
export function migrateSqlite(db: Database, migrations: readonly Migration[]): number[] {
  const applied: number[] = []
  const current = () => schemaVersion(db)
  const found = current()
  refuseNewerSchema(found, migrations)
  // Up to date: no transaction at all, so a database that cannot be written still opens.
  if (found === (migrations.at(-1)?.version ?? 0)) return applied
  for (const migration of migrations) {
    db.transaction(() => {
      // Checked inside the (immediate) transaction: two processes starting together apply each step once.
      if (migration.version <= current()) return
      db.exec(migration.sql)
      db.exec(`PRAGMA user_version = ${migration.version}`)
      applied.push(migration.version)
    }).immediate()
  }
  return applied
}

/**
 * SQLite's `PRAGMA quick_check`: the first problem it finds in the file, or
 * undefined for a sound one. It reads every page (its cost per MB:
 * bench/README.md, "The costs behind the code's choices"), so it runs once, when a server opens
 * the file.
 */
export function firstIntegrityProblem(db: Database): string | undefined {
  const rows = db.query('PRAGMA quick_check(1)').all() as { quick_check: string }[]
  const first = rows[0]?.quick_check
  if (first === 'ok') return undefined
  // One line for the start-up message: SQLite puts "*** in database main ***" and a newline first.
  return (first ?? 'no answer').replace('*** in database main ***', '').replace(/\s+/g, ' ').trim()
}
