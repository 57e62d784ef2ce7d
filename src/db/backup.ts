import type { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'

/**
 * Writes a consistent, compacted copy of the database to `file` with
 * `VACUUM INTO`: safe while the server writes, unlike copying the file
 * (which would miss what still sits in the WAL). Refuses to overwrite.
 */
export function backupDatabase(db: Database, file: string): void {
  if (existsSync(file)) throw new Error(`${file} already exists`)
  db.run('VACUUM INTO ?1', [file])
}
