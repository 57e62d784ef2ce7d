import { Database } from 'bun:sqlite'
import type { DataVersionWatcher } from './data_version'
import { SERVER_BUSY_TIMEOUT_MS } from './sqlite'

/**
 * The reads of one turn of the event loop share one read transaction
 * instead of one each, which costs the turn one pair of lock calls on the
 * WAL-index instead of a pair per statement (bench/README.md, "One
 * snapshot a turn"). The data version is still read at every list and
 * every pet read: most requests a turn serves arrived before it began, but
 * not all (most likely a connection accepted during the turn has its first
 * request read at once, and it may have been sent after another process's
 * commit), so a snapshot is kept only while the version is the one it
 * began under (bench/README.md, "A commit seen by a request of the same
 * turn").
 *
 * For a database file, the reads run on a connection of their own, opened
 * read-only on the same file, so the writes of the main connection (the
 * group commit, the key and limiter stores) never meet an open read
 * transaction. The group commit calls `end()` before it writes, so a read
 * after a commit, in the same turn or later, starts a new snapshot that
 * holds it, and the snapshot never holds back the checkpoint. A database in
 * memory has no second connection: its reads run on the main one, each in
 * its own transaction, as before.
 */
export class TurnReads {
  /** The connection to prepare the reads on; `close` finalizes their statements. */
  readonly db: Database
  readonly #reader: Database | undefined
  readonly #watcher: Pick<DataVersionWatcher, 'current'>
  /** The data version last asked, which an open snapshot holds at least; undefined once it has ended. */
  #version: number | undefined
  #inSnapshot = false
  /** Set while a read runs for a request that has just asked the version (readAsked). */
  #versionAsked = false
  #endScheduled = false
  readonly #endTurn = () => {
    this.#endScheduled = false
    this.end()
  }

  /** `ownConnection: false` reads on `main` itself, each statement in its own transaction (a store used alone, in tests). */
  constructor(main: Database, watcher: Pick<DataVersionWatcher, 'current'>, { ownConnection = true } = {}) {
    this.#watcher = watcher
    this.#reader = ownConnection ? readerOf(main) : undefined
    this.db = this.#reader ?? main
  }

  /**
   * A number that changes when another connection commits to the file
   * (DataVersionWatcher.current), asked at every call: a request can come in
   * after a commit and still be served in the turn that began before it
   * (most likely on a connection accepted during the turn, whose first
   * request is read at once). When the version has moved since the turn's
   * snapshot began, the snapshot is let go, so the next read begins one
   * that holds the commit.
   */
  current(): number {
    const version = this.#watcher.current()
    if (version !== this.#version) {
      if (this.#version !== undefined) this.end()
      this.#version = version
      this.#scheduleEnd()
    }
    return version
  }

  /**
   * Runs `read` for a request that has just asked `current()`, in the same
   * synchronous call (the page cache, before it reads a page it does not
   * keep): the reads' `begin()` does not ask again, so such a page costs one
   * read of the WAL-index header, not two. Only for that call: a later
   * request may have been sent after another commit.
   */
  readAsked<T>(read: () => T): T {
    this.#versionAsked = true
    try {
      return read()
    } finally {
      this.#versionAsked = false
    }
  }

  /**
   * Opens the turn's snapshot unless it is open: the statements prepared on
   * `db` then read the file as it was at the snapshot's first read. The
   * version is asked first (unless the request has just asked it,
   * `readAsked`, and it is still recorded), so a page read in the snapshot is
   * never older than the version it is kept under, nor than a commit made
   * before the request was sent, and a snapshot never begins without a
   * version that a later move can be told from.
   */
  begin(): void {
    if (this.#reader === undefined) return
    if (!this.#versionAsked || this.#version === undefined) this.current()
    if (this.#inSnapshot) return
    // A transaction an end could not close holds an older snapshot: it is let go first.
    if (this.#reader.inTransaction) this.#reader.exec('ROLLBACK')
    this.#reader.exec('BEGIN')
    this.#inSnapshot = true
  }

  /** Ends the turn's snapshot and forgets its version: at the turn's end, and before every write. */
  end(): void {
    this.#version = undefined
    if (!this.#inSnapshot) return
    this.#inSnapshot = false
    const reader = this.#reader as Database
    try {
      reader.exec('COMMIT')
    } catch {
      // A read transaction has nothing to lose; if even this fails, the next begin lets it go.
      try {
        reader.exec('ROLLBACK')
      } catch {}
    }
  }

  /**
   * Ends the snapshot and closes the reads' connection, its statements
   * finalized, before the main one closes: that is then the file's last,
   * which may leave WAL mode and mark the file closed (db/wal_ownership.ts).
   */
  close(): void {
    this.end()
    this.#reader?.close(true)
  }

  #scheduleEnd(): void {
    if (this.#endScheduled) return
    this.#endScheduled = true
    setImmediate(this.#endTurn)
  }
}

/** A read-only connection to the file `main` has open, or undefined for a database in memory. */
function readerOf(main: Database): Database | undefined {
  const file = main.filename
  if (!file || file === ':memory:') return undefined
  const reader = new Database(file, { readonly: true, strict: true })
  reader.exec(`PRAGMA busy_timeout = ${SERVER_BUSY_TIMEOUT_MS}`)
  return reader
}
