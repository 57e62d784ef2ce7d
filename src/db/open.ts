import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { migrate } from './migrate'
import { migrations } from './migrations'

/** How hard SQLite works to keep a commit: NORMAL survives a process crash, FULL a power loss. */
export type Synchronous = 'normal' | 'full'

/**
 * Opens (creating if needed) the SQLite database at `path`, in WAL mode,
 * migrated to the current schema. `:memory:` gives a private database for tests.
 */
export function openDatabase(path: string, synchronous: Synchronous = 'normal'): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path, { create: true, strict: true })
  db.exec('PRAGMA journal_mode = WAL')
  db.exec(`PRAGMA synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
  // The CLI and the server write the same file; wait for each other instead of failing.
  db.exec('PRAGMA busy_timeout = 5000')
  migrate(db, migrations)
  return db
}
