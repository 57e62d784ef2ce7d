import { Database } from 'bun:sqlite'
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { refuseNewerSchema } from './migration'
import { firstIntegrityProblem, openDatabase } from './sqlite'
import { sqliteMigrations } from './sqlite_migrations'
import { closeDatabase } from './wal_ownership'

/** Why a restore did not happen; nothing was changed. */
export class RestoreError extends Error {
  override name = 'RestoreError'
}

/** What a restore did: where the database it replaced was kept, if there was one. */
export interface Restored {
  replacedKeptAs: string | undefined
}

/**
 * Puts the backup `file` (made by `backup`) in place as the database at
 * `target`, the counterpart of `backupDatabase`:
 * - the backup must be a sound Animal Store database this build can read
 *   (quick_check, the pets table, a schema version not newer than the build);
 * - no other process may have `target` open: a server is refused (SQLite's
 *   exclusive lock, which any open connection in WAL mode prevents);
 * - the database it replaces is kept beside it, renamed with the time, and
 *   its `-wal` and `-shm` go too, so no stale log is ever replayed into the
 *   restored file;
 * - the copy is synced, renamed into place, opened (migrated if it is from
 *   an older build) and checked again.
 */
export function restoreDatabase(file: string, target: string, now = new Date()): Restored {
  checkBackup(file)
  let replacedKeptAs: string | undefined
  if (existsSync(target)) {
    refuseIfOpenElsewhere(target)
    replacedKeptAs = `${target}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`
    renameSync(target, replacedKeptAs)
  }
  for (const leftover of [`${target}-wal`, `${target}-shm`]) rmSync(leftover, { force: true })
  const copy = `${target}.restoring`
  copyFileSync(file, copy)
  syncPath(copy)
  renameSync(copy, target)
  syncPath(dirname(target))
  const db = openDatabase(target)
  const problem = firstIntegrityProblem(db)
  closeDatabase(db)
  if (problem !== undefined) throw new RestoreError(`the restored ${target} fails its check: ${problem}`)
  return { replacedKeptAs }
}

function checkBackup(file: string): void {
  if (!existsSync(file)) throw new RestoreError(`${file} does not exist`)
  let backup: Database
  try {
    backup = new Database(file, { readonly: true })
  } catch (error) {
    throw new RestoreError(`${file} cannot be opened: ${(error as Error).message}`)
  }
  try {
    const problem = firstIntegrityProblem(backup)
    if (problem !== undefined) throw new RestoreError(`${file} is damaged (PRAGMA quick_check: ${problem})`)
    const pets = backup.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pets'").get()
    if (pets === null) throw new RestoreError(`${file} is not an Animal Store database (it has no pets table)`)
    const { user_version } = backup.query('PRAGMA user_version').get() as { user_version: number }
    refuseNewerSchema(user_version, sqliteMigrations)
  } catch (error) {
    if (error instanceof RestoreError) throw error
    throw new RestoreError(`${file}: ${(error as Error).message}`)
  } finally {
    backup.close()
  }
}

/** Throws unless this process can take SQLite's exclusive lock on `target`, which no other connection then holds. */
function refuseIfOpenElsewhere(target: string): void {
  const probe = new Database(target)
  try {
    probe.exec('PRAGMA busy_timeout = 0')
    probe.exec('PRAGMA locking_mode = EXCLUSIVE')
    probe.exec('BEGIN EXCLUSIVE')
    probe.exec('ROLLBACK')
  } catch {
    throw new RestoreError(`${target} is open in another process (a running server?): stop it, then restore`)
  } finally {
    probe.close()
  }
}

function syncPath(path: string): void {
  const handle = openSync(path, 'r')
  try {
    fsyncSync(handle)
  } finally {
    closeSync(handle)
  }
}
