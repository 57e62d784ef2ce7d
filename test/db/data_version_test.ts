import type { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
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

describe('DataVersionWatcher', () => {
  test('moves when another connection commits, once the check interval has passed', () => {
    const { ours, theirs } = twoConnections()
    let now = 1_000_000
    const watcher = new DataVersionWatcher(ours, () => now)
    const before = watcher.current()
    theirs.run("INSERT INTO pets (name, category_id, status) VALUES ('Outsider', 1, 'available')")
    now += DATA_VERSION_CHECK_MS - 1
    expect(watcher.current()).toBe(before)
    now += 1
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

  test('asks SQLite at most once per interval, however often it is asked', () => {
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
