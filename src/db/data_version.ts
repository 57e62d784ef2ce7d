import type { Database, Statement } from 'bun:sqlite'

/**
 * How often the watcher asks SQLite whether another process wrote the file:
 * `PRAGMA data_version` costs too much for every request (bench/README.md,
 * "The key check" and "The costs behind the code's choices"), so a change made by the CLI is
 * seen within this.
 */
export const DATA_VERSION_CHECK_MS = 200

/**
 * Answers "has another connection (the CLI, another process) committed to
 * this database file?" for every in-memory copy of its data (the key map, the
 * first-page cache), which each keep the version they last saw and reload
 * when it moves. `PRAGMA data_version` is asked at most every
 * DATA_VERSION_CHECK_MS, however many copies ask. This connection's own
 * commits do not move it: a store that writes updates its copy itself.
 */
export class DataVersionWatcher {
  #dataVersion: Statement<{ data_version: number }, []>
  #clock: () => number
  #checkedAt = -Infinity
  #version = -1

  constructor(db: Database, clock: () => number = Date.now) {
    this.#dataVersion = db.prepare('PRAGMA data_version')
    this.#clock = clock
  }

  /** A number that changes when another connection commits; at most DATA_VERSION_CHECK_MS old. */
  current(): number {
    const now = this.#clock()
    if (now - this.#checkedAt >= DATA_VERSION_CHECK_MS) {
      this.#checkedAt = now
      this.#version = this.#dataVersion.get()!.data_version
    }
    return this.#version
  }
}
