import type { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DATA_VERSION_CHECK_MS, DataVersionWatcher } from '../../src/db/data_version'
import { openDatabase } from '../../src/db/sqlite'
import { tempDir } from '../helpers'

const workspaces: { cleanup(): void }[] = []
afterEach(() => {
  for (const workspace of workspaces.splice(0)) workspace.cleanup()
})

/** Two connections to one new database file: this process's, and another's (the CLI's). */
function twoConnections() {
  const workspace = tempDir('animal-store-data-version-')
  workspaces.push(workspace)
  const path = join(workspace.dir, 'store.sqlite')
  return { ours: openDatabase(path), theirs: openDatabase(path) }
}

// The WAL-index header read both ways: mapped (where bun:ffi can call mmap, as on this project's Linux) and with pread.
const HEADER_READS = [
  { way: 'header mapped', mapHeader: true },
  { way: 'header read with pread', mapHeader: false },
]

describe.each(HEADER_READS)('DataVersionWatcher ($way)', ({ mapHeader }) => {
  test('on a file in WAL mode, moves at the very next call after another connection commits', () => {
    const { ours, theirs } = twoConnections()
    const watcher = new DataVersionWatcher(ours, () => 1_000_000, { mapHeader })
    expect(watcher.exact).toBe(true)
    expect(watcher.mapped).toBe(mapHeader && process.platform === 'linux')
    let before = watcher.current()
    for (let i = 0; i < 20; i++) {
      theirs.run("INSERT INTO pets (name, category_id, status) VALUES ('Outsider', 1, 'available')")
      const now = watcher.current()
      expect(now).not.toBe(before)
      expect(watcher.current()).toBe(now)
      before = now
    }
    // The log starting over (a checkpoint that resets it) changes the salts: still seen.
    theirs.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    theirs.run("INSERT INTO pets (name, category_id, status) VALUES ('After the reset', 1, 'available')")
    expect(watcher.current()).not.toBe(before)
  })

  test('on a file in WAL mode, asks SQLite only when the WAL-index moved', () => {
    const { ours, theirs } = twoConnections()
    let asked = 0
    const counting = new Proxy(ours, {
      get(target, property) {
        if (property !== 'prepare') {
          const value = Reflect.get(target, property, target)
          return typeof value === 'function' ? value.bind(target) : value
        }
        return (sql: string) => {
          const statement = target.prepare(sql)
          return {
            get() {
              asked++
              return statement.get()
            },
          }
        }
      },
    }) as Database
    const watcher = new DataVersionWatcher(counting, Date.now, { mapHeader })
    for (let i = 0; i < 1000; i++) watcher.current()
    expect(asked).toBe(1)
    theirs.run("INSERT INTO pets (name, category_id, status) VALUES ('Outsider', 1, 'available')")
    for (let i = 0; i < 1000; i++) watcher.current()
    expect(asked).toBe(2)
  })

  test("keeps SQLite's lock on the -shm file, from the start to after many reads", () => {
    // Closing any descriptor of the -shm file drops this process's POSIX locks on it; another process that
    // then finds no lock takes the file for unused and resets it under SQLite (a watcher that mapped the file
    // with Bun.mmap, which closes the descriptor it maps from, made a server crash with SIGBUS when another
    // process opened it).
    const { ours } = twoConnections()
    ours.query('SELECT count(*) FROM pets').get()
    const inode = statSync(`${ours.filename}-shm`).ino
    const held = () =>
      readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((line) => line.includes(` ${process.pid} `) && line.includes(`:${inode} `)).length
    expect(held()).toBeGreaterThan(0)
    const watcher = new DataVersionWatcher(ours, Date.now, { mapHeader })
    for (let i = 0; i < 100; i++) watcher.current()
    expect(held()).toBeGreaterThan(0)
  })

  test('once closed, answers the last version it read without reading the header again', () => {
    const { ours, theirs } = twoConnections()
    const watcher = new DataVersionWatcher(ours, Date.now, { mapHeader })
    const last = watcher.current()
    watcher.close()
    expect(watcher.mapped).toBe(false)
    // A mapping let go and still read would crash this process; a header still read would see this commit.
    theirs.run("INSERT INTO pets (name, category_id, status) VALUES ('Outsider', 1, 'available')")
    expect(watcher.current()).toBe(last)
  })
})

describe('DataVersionWatcher', () => {
  test('without a WAL-index (a database in memory), asks at most every DATA_VERSION_CHECK_MS', () => {
    const watcher = new DataVersionWatcher(openDatabase(':memory:'))
    expect(watcher.exact).toBe(false)
  })

  test('recent() asks at most every DATA_VERSION_CHECK_MS even on a file in WAL mode', () => {
    const { ours, theirs } = twoConnections()
    let now = 1_000_000
    const watcher = new DataVersionWatcher(ours, () => now)
    const before = watcher.recent()
    theirs.run("INSERT INTO pets (name, category_id, status) VALUES ('Outsider', 1, 'available')")
    now += DATA_VERSION_CHECK_MS - 1
    expect(watcher.recent()).toBe(before)
    expect(watcher.current()).not.toBe(before)
  })

  test('does not move for commits of its own connection', () => {
    const { ours } = twoConnections()
    let now = 1_000_000
    const watcher = new DataVersionWatcher(ours, () => now)
    const before = watcher.current()
    ours.run("INSERT INTO pets (name, category_id, status) VALUES ('Insider', 1, 'available')")
    now += DATA_VERSION_CHECK_MS
    expect(watcher.current()).toBe(before)
  })

  test('without a WAL-index, asks SQLite at most once per interval, however often it is asked', () => {
    const { ours } = twoConnections()
    let asked = 0
    // The database as the watcher sees it, counting each time the version is read.
    const counting = {
      prepare(sql: string) {
        const statement = ours.prepare(sql)
        return {
          get() {
            asked++
            return statement.get()
          },
        }
      },
    } as unknown as Database
    let now = 1_000_000
    const watcher = new DataVersionWatcher(counting, () => now)
    for (let i = 0; i < 1000; i++) watcher.current()
    expect(asked).toBe(1)
    now += DATA_VERSION_CHECK_MS
    for (let i = 0; i < 1000; i++) watcher.current()
    expect(asked).toBe(2)
  })
})
