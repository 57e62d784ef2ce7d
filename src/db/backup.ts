import { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { CLOSED_MARK } from './wal_ownership'

/**
 * Writes a consistent, compacted copy of the database to `file` with
 * `VACUUM INTO`: safe while the server writes, unlike copying the file
 * (which would miss what still sits in the WAL). Refuses to overwrite.
 * The copy, which has no log, is marked closed cleanly (db/wal_ownership.ts):
 * put in place by hand beside a stale `-wal`, it is refused, not overwritten.
 */
export function backupDatabase(db: Database, file: string): void {
  if (existsSync(file)) throw new Error(`${file} already exists`)
  db.run('VACUUM INTO ?1', [file])
  const copy = new Database(file)
  try {
    copy.exec(`PRAGMA application_id = ${CLOSED_MARK}`)
  } finally {
    copy.close()
  }
}
