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

/** What a restore did: where the database it replaced was kept, if there was one, and what it carried over from it. */
export interface Restored {
  replacedKeptAs: string | undefined
  /**
   * One line per key the replaced database held tighter than the backup
   * (revoked, expiring sooner, read-only, lower limits), which the restored
   * one now holds the same way; or why the replaced database's keys could
   * not be read.
   */
  carried: string[]
}

/** What a key's safety is made of, as each database holds it. */
interface KeyState {
  id: number
  hash: string
  name: string
  plan: string
  rpm: number
  rpd: number
  access: string
  revokedAt: string | null
  expiresAt: string | null
}

const KEY_STATE = `SELECT id, hash, name, plan, rpm, rpd, access, revoked_at AS revokedAt, expires_at AS expiresAt
                   FROM api_keys`

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
  let current: KeyState[] | string = []
  if (existsSync(target)) {
    refuseIfOpenElsewhere(target)
    current = readKeyStates(target)
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
  let carried: string[]
  try {
    carried = typeof current === 'string' ? [current] : carryKeySafety(db, current)
  } finally {
    closeDatabase(db)
  }
  if (problem !== undefined) throw new RestoreError(`the restored ${target} fails its check: ${problem}`)
  return { replacedKeptAs, carried }
}

/**
 * The keys of the database about to be replaced, read before it is moved
 * aside (opening it replays its log, and closing folds the log in, so the
 * copy kept beside is whole); a line saying why not when it cannot be read
 * (a damaged file is just when one restores).
 */
function readKeyStates(target: string): KeyState[] | string {
  try {
    const db = new Database(target)
    try {
      return db.query(KEY_STATE).all() as KeyState[]
    } finally {
      db.close()
    }
  } catch (error) {
    return `The keys of the replaced database could not be read (${(error as Error).message}): check revocations by hand (keys list)`
  }
}

/**
 * A restore must never undo what was done to a key since the backup: each
 * key both databases hold (same id and hash) is made as tight in the
 * restored one as it is in the replaced one: revoked, expiring no later,
 * read-only, and with no higher limits (its plan with them). Keys made after
 * the backup are not in the restored database at all. Gives a line per key
 * changed.
 */
function carryKeySafety(db: Database, current: readonly KeyState[]): string[] {
  const restored = new Map((db.query(KEY_STATE).all() as KeyState[]).map((key) => [key.id, key]))
  const update = db.prepare(
    `UPDATE api_keys SET revoked_at = ?2, expires_at = ?3, access = ?4, plan = ?5, rpm = ?6, rpd = ?7 WHERE id = ?1`,
  )
  const lines: string[] = []
  db.transaction(() => {
    for (const now of current) {
      const then = restored.get(now.id)
      if (then === undefined || then.hash !== now.hash) continue
      const tighter = { ...then }
      const what: string[] = []
      if (now.revokedAt !== null && then.revokedAt === null) {
        tighter.revokedAt = now.revokedAt
        what.push(`revoked ${now.revokedAt}`)
      }
      if (now.expiresAt !== null && (then.expiresAt === null || now.expiresAt < then.expiresAt)) {
        tighter.expiresAt = now.expiresAt
        what.push(`expires ${now.expiresAt}`)
      }
      if (now.access === 'read-only' && then.access !== 'read-only') {
        tighter.access = 'read-only'
        what.push('read-only')
      }
      if (now.rpm < then.rpm || now.rpd < then.rpd) {
        Object.assign(tighter, { plan: now.plan, rpm: Math.min(now.rpm, then.rpm), rpd: Math.min(now.rpd, then.rpd) })
        what.push(`limits ${tighter.rpm}/min, ${tighter.rpd}/day`)
      }
      if (what.length === 0) continue
      const { id, revokedAt, expiresAt, access, plan, rpm, rpd } = tighter
      update.run(id, revokedAt, expiresAt, access, plan, rpm, rpd)
      lines.push(`Key ${id} (${now.name}) kept as the replaced database had it: ${what.join(', ')}`)
    }
  })()
  return lines
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
