import type { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { DataVersionWatcher } from '../../src/db/data_version'
import { GroupCommit } from '../../src/db/group_commit'
import { openDatabase } from '../../src/db/sqlite'
import { TurnReads } from '../../src/db/turn_reads'
import { CLOSED_MARK, closeDatabase, headerMark } from '../../src/db/wal_ownership'
import { cleanupsAfterEach, tempDir } from '../helpers'

const cleanups = cleanupsAfterEach()

/** A new database file, opened twice: this process's connection, and another's (the CLI's, a second server's). */
function twoConnections() {
  const workspace = tempDir('animal-store-turn-reads-')
  cleanups.push(workspace.cleanup)
  const path = join(workspace.dir, 'store.sqlite')
  return { path, ours: openDatabase(path), theirs: openDatabase(path) }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

function addPet(db: Database, name: string): void {
  db.run("INSERT INTO pets (name, category_id, status) VALUES (?1, 1, 'available')", [name])
}

function petCount(reads: TurnReads): number {
  reads.begin()
  return (reads.db.query('SELECT count(*) AS n FROM pets').get() as { n: number }).n
}

describe('TurnReads', () => {
  test('the reads of one turn share a snapshot while nothing is committed; a commit by another connection is seen by the next read, in the same turn too', async () => {
    const { ours, theirs } = twoConnections()
    const reads = new TurnReads(ours, new DataVersionWatcher(ours))
    expect(reads.db).not.toBe(ours)
    addPet(theirs, 'Before')
    expect(petCount(reads)).toBe(1)
    expect(reads.db.inTransaction).toBe(true)
    // A request read during the turn, sent after this commit (a connection accepted in the turn), must see it.
    addPet(theirs, 'During the turn')
    expect(petCount(reads)).toBe(2)
    await nextTurn()
    expect(reads.db.inTransaction).toBe(false)
    expect(petCount(reads)).toBe(2)
    reads.close()
  })

  test('asks the watcher at every read, before the snapshot begins, and keeps the snapshot while the version stays', async () => {
    const { ours, theirs } = twoConnections()
    let version = 1
    let asked = 0
    // A commit that lands while the version is asked must be in the snapshot read after it.
    const watcher = {
      current: () => {
        asked++
        if (asked === 1) addPet(theirs, 'While asking')
        return version
      },
    }
    const reads = new TurnReads(ours, watcher)
    // The turn's first read asks the version first: the commit made meanwhile is in its snapshot.
    expect(petCount(reads)).toBe(1)
    expect(reads.current()).toBe(1)
    expect(asked).toBe(2)
    // Committed, but the version has not moved (as for this process's own writes): the snapshot is kept.
    addPet(theirs, 'Unannounced')
    expect(petCount(reads)).toBe(1)
    // The version moved: the snapshot is let go and the next read begins one that holds both pets.
    version = 2
    expect(petCount(reads)).toBe(2)
    expect(reads.current()).toBe(2)
    await nextTurn()
    expect(reads.db.inTransaction).toBe(false)
    reads.close()
  })

  test('a read run by readAsked does not ask the version again; a read after it does, even if the first threw', () => {
    const { ours } = twoConnections()
    let asked = 0
    const reads = new TurnReads(ours, {
      current: () => {
        asked++
        return 1
      },
    })
    // The page cache asks, then reads a page it does not keep: one ask for the two.
    reads.current()
    expect(reads.readAsked(() => petCount(reads))).toBe(0)
    expect(asked).toBe(1)
    // Another request's read, later in the turn, may have been sent after a commit: it asks.
    petCount(reads)
    expect(asked).toBe(2)
    expect(() =>
      reads.readAsked(() => {
        throw new Error('failed read')
      }),
    ).toThrow('failed read')
    petCount(reads)
    expect(asked).toBe(3)
    reads.close()
  })

  test('a read run by readAsked with no version recorded (none asked, or the snapshot ended) asks, so a later move ends its snapshot', () => {
    const { ours, theirs } = twoConnections()
    let version = 1
    let asked = 0
    const reads = new TurnReads(ours, {
      current: () => {
        asked++
        return version
      },
    })
    expect(reads.readAsked(() => petCount(reads))).toBe(0)
    expect(asked).toBe(1)
    // Another process commits and the version moves: the snapshot begun above is let go at the next read.
    addPet(theirs, 'After the snapshot began')
    version = 2
    expect(petCount(reads)).toBe(1)
    reads.close()
  })

  test('a write through the group commit ends the snapshot, so a read after it in the same turn sees it', async () => {
    const { ours } = twoConnections()
    const reads = new TurnReads(ours, new DataVersionWatcher(ours))
    const writes = new GroupCommit(ours, reads)
    // Queued before the turn's first read: its commit comes before the turn's own end.
    const written = writes.write(() => addPet(ours, 'Ours'))
    expect(petCount(reads)).toBe(0)
    await written
    expect(petCount(reads)).toBe(1)
    reads.close()
  })

  test('a transaction left open on the reads connection is let go, never read from, by the next turn', async () => {
    const { ours, theirs } = twoConnections()
    const reads = new TurnReads(ours, new DataVersionWatcher(ours))
    expect(petCount(reads)).toBe(0)
    await nextTurn()
    // As if a turn's end could not close it: a snapshot from before the pet below, still open.
    reads.db.exec('BEGIN')
    reads.db.query('SELECT count(*) AS n FROM pets').get()
    addPet(theirs, 'After')
    expect(petCount(reads)).toBe(1)
    reads.close()
  })

  test('reads on a connection that cannot write', () => {
    const { ours } = twoConnections()
    const reads = new TurnReads(ours, new DataVersionWatcher(ours))
    expect(() => addPet(reads.db, 'Through the reader')).toThrow(/readonly/)
    reads.close()
  })

  test('closed first, it leaves the main connection the last, which marks the file closed', () => {
    const { path, ours, theirs } = twoConnections()
    closeDatabase(theirs)
    const reads = new TurnReads(ours, new DataVersionWatcher(ours))
    // A statement still held and a snapshot still open are let go by close.
    const statement = reads.db.prepare('SELECT count(*) AS n FROM pets')
    reads.begin()
    statement.get()
    reads.close()
    closeDatabase(ours)
    expect(headerMark(path)).toBe(CLOSED_MARK)
  })

  test('on a database in memory, or with ownConnection off, reads on the main connection, each statement alone', async () => {
    const memory = openDatabase(':memory:')
    expect(new TurnReads(memory, { current: () => 0 }).db).toBe(memory)
    const { ours, theirs } = twoConnections()
    const reads = new TurnReads(ours, { current: () => 0 }, { ownConnection: false })
    expect(reads.db).toBe(ours)
    expect(petCount(reads)).toBe(0)
    addPet(theirs, 'Seen at once')
    expect(petCount(reads)).toBe(1)
    expect(ours.inTransaction).toBe(false)
  })
})
