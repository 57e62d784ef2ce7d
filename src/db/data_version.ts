import type { Database, Statement } from 'bun:sqlite'
import { closeSync, openSync, readSync } from 'node:fs'
import { type MappedWords, mapWords } from './mapped_words'

/**
 * Without a WAL-index to read (a database in memory, or one not in WAL
 * mode, which only a command reading a file it cannot write opens), how
 * often the watcher asks SQLite whether another connection wrote the file.
 */
export const DATA_VERSION_CHECK_MS = 200

// The WAL-index header at the start of the -shm file (https://sqlite.org/walformat.html, "The WAL-Index
// Header"), as 32-bit words in the machine's order: mxFrame, the last valid frame, moves with every commit;
// the salts change when the log starts over. Together they change with every commit, by any connection.
const HEADER_WORDS = 12
const MX_FRAME = 4
const SALT_1 = 8
const SALT_2 = 9

/**
 * Answers "has another connection (another process, the CLI) committed to
 * this database file?" for every in-memory copy of its data (the key map, the
 * page cache), which each keep the version they last saw and reload when it
 * moves. This connection's own commits do not move it: a store that writes
 * updates its copy itself.
 *
 * `current()` is exact: a commit another process has acknowledged is seen
 * by the next call. `PRAGMA data_version` is exact but costs too much for
 * every request (bench/README.md, "The costs behind the code's choices"), so
 * the watcher first reads the WAL-index header from the -shm file, which
 * every commit updates before it returns: while the header is as it was, no
 * connection has committed, and the pragma is asked only when it moved
 * (after this connection's own commits too). `recent()` asks at most every
 * DATA_VERSION_CHECK_MS, for a copy whose changes may take that long (the
 * key map: a key change is applied within a second). Without a -shm file,
 * both ask at most every DATA_VERSION_CHECK_MS.
 *
 * The header is read through a descriptor the watcher keeps open until the
 * database has closed: closing any descriptor of the -shm file drops every
 * POSIX lock this process holds on it, SQLite's included, and another
 * process would then take the file for unused and reset it under SQLite.
 * Where it can (db/mapped_words.ts), the watcher maps the header from that
 * descriptor, shared and read only, as SQLite maps the same file, so a
 * read is a load from memory and not a system call; elsewhere it reads it
 * with pread (bench/README.md, "The WAL-index header mapped").
 */
export class DataVersionWatcher {
  #dataVersion: Statement<{ data_version: number }, []>
  #clock: () => number
  #shm: number | undefined
  /** The header mapped from `#shm`, when it could be; else it is read into `#bytes` with pread. */
  #mapped: MappedWords | undefined
  #bytes = new Uint8Array(HEADER_WORDS * 4)
  #readHeader = new Uint32Array(this.#bytes.buffer)
  #mxFrame = -1
  #salt1 = -1
  #salt2 = -1
  #checkedAt = -Infinity
  #version = -1

  /** `mapHeader: false` reads the header with pread even where it could be mapped (tests of that way). */
  constructor(db: Database, clock: () => number = Date.now, { mapHeader = true } = {}) {
    this.#dataVersion = db.prepare('PRAGMA data_version')
    this.#clock = clock
    this.#shm = walIndex(db)
    if (this.#shm !== undefined && mapHeader) this.#mapped = mapWords(this.#shm, HEADER_WORDS)
  }

  /** A number that changes when another connection commits: exact, read anew at every call. */
  current(): number {
    if (this.#shm === undefined) return this.recent()
    const header = this.#mapped?.words ?? this.#readHeader
    if (
      header === this.#readHeader &&
      readSync(this.#shm, this.#bytes, 0, this.#bytes.length, 0) !== this.#bytes.length
    )
      return this.recent()
    // Each word read once: a mapped header may move while it is read.
    const mxFrame = header[MX_FRAME]!
    const salt1 = header[SALT_1]!
    const salt2 = header[SALT_2]!
    if (mxFrame !== this.#mxFrame || salt1 !== this.#salt1 || salt2 !== this.#salt2) {
      // Read before asking: a commit that lands in between moves the header again, and is asked about next time.
      this.#mxFrame = mxFrame
      this.#salt1 = salt1
      this.#salt2 = salt2
      this.#version = this.#dataVersion.get()!.data_version
    }
    return this.#version
  }

  /** Whether `current()` reads the WAL-index (exact at every call), rather than asking every DATA_VERSION_CHECK_MS. */
  get exact(): boolean {
    return this.#shm !== undefined
  }

  /** Whether `current()` reads the WAL-index header from a mapping of it, not with pread. */
  get mapped(): boolean {
    return this.#mapped !== undefined
  }

  /** Lets go of the -shm file: once the database has closed, so no lock of SQLite's is dropped while it holds one. */
  close(): void {
    this.#mapped?.unmap()
    this.#mapped = undefined
    if (this.#shm !== undefined) closeSync(this.#shm)
    this.#shm = undefined
    this.#checkedAt = Number.POSITIVE_INFINITY
  }

  /** A number that changes when another connection commits; at most DATA_VERSION_CHECK_MS old. */
  recent(): number {
    const now = this.#clock()
    if (now - this.#checkedAt >= DATA_VERSION_CHECK_MS) {
      this.#checkedAt = now
      this.#version = this.#dataVersion.get()!.data_version
    }
    return this.#version
  }
}

/** A descriptor of the -shm file of a file database in WAL mode, to read its WAL-index from; undefined for any other. */
function walIndex(db: Database): number | undefined {
  const file = db.filename
  if (!file || file === ':memory:') return undefined
  const { journal_mode } = db.query('PRAGMA journal_mode').get() as { journal_mode: string }
  if (journal_mode !== 'wal') return undefined
  try {
    return openSync(`${file}-shm`, 'r')
  } catch {
    return undefined
  }
}
