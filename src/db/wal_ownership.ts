import type { Database } from 'bun:sqlite'
import { closeSync, openSync, readSync, statSync } from 'node:fs'

// SQLite replays whatever `-wal` file lies beside a database when it opens
// it, even one from another database or an older copy, and nothing in the
// log ties it to its database. So the file says itself whether a log may
// belong to it, in its header's application_id (offset 68), readable before
// SQLite opens it:
// - OPEN_MARK is written, in rollback mode, before a process switches the
//   file to WAL mode, so the main file says "open" whenever a log may exist;
// - CLOSED_MARK is written by the last process to close it, after it has
//   left WAL mode (the log checkpointed and deleted) and under an exclusive
//   lock, so no log of its own is left behind.
// A `-wal` with content beside a file that says "closed" is therefore not its
// own and is refused. What this cannot catch: a foreign log beside a file
// left "open" (a process was killed, the machine lost power), which is also
// when its own log must be replayed.

/** "AnSo": a process has (or had, if it was killed) the database open. */
export const OPEN_MARK = 0x416e536f
/** "AnSc": the last process closed it cleanly, leaving no log. */
export const CLOSED_MARK = 0x416e5363

const APPLICATION_ID_OFFSET = 68

/** A `-wal` beside a database that was closed cleanly: another database's log, or a stale one. */
export class ForeignWalError extends Error {
  override name = 'ForeignWalError'
  constructor(readonly path: string) {
    super(
      `"${path}-wal" is not this database's log: "${path}" was closed cleanly, with no log left, so replaying this one could replace its data with another database's; move "${path}-wal" and "${path}-shm" out of the folder (keep them until you are sure), then start again`,
    )
  }
}

/** Throws ForeignWalError when a `-wal` with content lies beside a database that says it was closed cleanly. */
export function refuseForeignWal(path: string): void {
  if (logSize(`${path}-wal`) === 0) return
  if (headerMark(path) === CLOSED_MARK) throw new ForeignWalError(path)
}

/**
 * Marks the database open; call it before switching to WAL mode. It writes
 * only when the mark differs, unless `always` (a write probe: the server
 * starts only on storage it can write).
 */
export function markOpen(db: Database, { always = false } = {}): void {
  const { application_id } = db.query('PRAGMA application_id').get() as { application_id: number }
  if (always || application_id !== OPEN_MARK) db.exec(`PRAGMA application_id = ${OPEN_MARK}`)
}

/**
 * Closes `db`, first marking the file closed cleanly when this is its last
 * connection: WAL mode is left (which checkpoints and deletes the log) under
 * an exclusive lock, then the mark is written. Another connection still
 * open (a server while a CLI command ends) makes the switch fail at once;
 * the mark then stays "open" for that connection to close.
 */
export function closeDatabase(db: Database): void {
  try {
    db.exec('PRAGMA busy_timeout = 0')
    db.exec('PRAGMA locking_mode = EXCLUSIVE')
    const { journal_mode } = db.query('PRAGMA journal_mode = DELETE').get() as { journal_mode: string }
    if (journal_mode === 'delete') db.exec(`PRAGMA application_id = ${CLOSED_MARK}`)
  } catch {
    // Busy elsewhere, or the storage failed: the file stays marked open, which is always safe.
  } finally {
    // Give any lock back now: bun:sqlite's close leaves the connection open until its prepared statements are collected.
    try {
      db.exec('PRAGMA locking_mode = NORMAL')
      db.query('SELECT count(*) FROM sqlite_master').get()
    } catch {}
    db.close()
  }
}

/** The application_id in the file's header, read without SQLite; undefined for a missing or short file. */
export function headerMark(path: string): number | undefined {
  let handle: number
  try {
    handle = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const header = Buffer.alloc(APPLICATION_ID_OFFSET + 4)
    if (readSync(handle, header, 0, header.length, 0) < header.length) return undefined
    return header.readUInt32BE(APPLICATION_ID_OFFSET)
  } finally {
    closeSync(handle)
  }
}

function logSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
