import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backupDatabase } from '../../src/db/backup'
import { openDatabase } from '../../src/db/sqlite'
import {
  CLOSED_MARK,
  closeDatabase,
  ForeignWalError,
  headerMark,
  OPEN_MARK,
  refuseForeignWal,
} from '../../src/db/wal_ownership'
import { cleanupsAfterEach, tempDir } from '../helpers'

const cleanups = cleanupsAfterEach()

function folder(): string {
  const { dir, cleanup } = tempDir('animal-store-wal-')
  cleanups.push(cleanup)
  return dir
}

/** A database of `count` pets whose committed pages still sit in its `-wal` (a server killed mid-run leaves this). */
function withLiveLog(path: string, count: number): Database {
  const db = openDatabase(path)
  const insert = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?1, 1, ?2)')
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(`${path} ${i}`, 'available')
  })()
  // Finalized, so that closing the connection closes it at once (bun:sqlite's close waits for its statements).
  insert.finalize()
  return db
}

const petCount = (db: Database) => (db.query('SELECT count(*) AS n FROM pets').get() as { n: number }).n

describe('the database says in its header whether a log beside it may be its own', () => {
  test('open: marked open before WAL mode; closed by its last connection: log gone, marked closed', () => {
    const path = join(folder(), 'store.sqlite')
    const db = withLiveLog(path, 3)
    expect(headerMark(path)).toBe(OPEN_MARK)
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0)
    closeDatabase(db)
    expect(headerMark(path)).toBe(CLOSED_MARK)
    expect(existsSync(`${path}-wal`)).toBe(false)
    const again = openDatabase(path)
    expect(petCount(again)).toBe(3)
    expect(again.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(headerMark(path)).toBe(OPEN_MARK)
    closeDatabase(again)
  })

  test('a connection closing while another still has the file open leaves it marked open, its log in use', () => {
    const path = join(folder(), 'store.sqlite')
    const server = withLiveLog(path, 2)
    const command = openDatabase(path)
    expect(petCount(command)).toBe(2)
    closeDatabase(command)
    expect(headerMark(path)).toBe(OPEN_MARK)
    server.run("INSERT INTO pets (name, category_id, status) VALUES ('after', 1, 'available')")
    expect(petCount(server)).toBe(3)
    closeDatabase(server)
    expect(headerMark(path)).toBe(CLOSED_MARK)
  })

  test("another database's log beside a cleanly closed one is refused before SQLite can replay it", () => {
    const dir = folder()
    const ours = join(dir, 'store.sqlite')
    closeDatabase(withLiveLog(ours, 30))
    const before = readFileSync(ours)
    const other = withLiveLog(join(dir, 'other.sqlite'), 5)
    copyFileSync(join(dir, 'other.sqlite-wal'), `${ours}-wal`)
    other.close()
    expect(() => refuseForeignWal(ours)).toThrow(ForeignWalError)
    expect(() => openDatabase(ours)).toThrow(`"${ours}-wal" is not this database's log`)
    expect(readFileSync(ours).equals(before)).toBe(true)
  })

  test('a log beside a file left open (its process killed) is its own and is replayed', () => {
    const path = join(folder(), 'store.sqlite')
    const killed = withLiveLog(path, 4)
    // What a killed process leaves: the main file marked open, the committed pets only in the log.
    const crashCopy = join(folder(), 'store.sqlite')
    copyFileSync(path, crashCopy)
    copyFileSync(`${path}-wal`, `${crashCopy}-wal`)
    killed.close()
    expect(headerMark(crashCopy)).toBe(OPEN_MARK)
    const recovered = openDatabase(crashCopy)
    expect(petCount(recovered)).toBe(4)
    closeDatabase(recovered)
  })

  test('an empty log, or a file from before the marks (application_id 0), is opened as before', () => {
    const path = join(folder(), 'store.sqlite')
    closeDatabase(withLiveLog(path, 1))
    writeFileSync(`${path}-wal`, '')
    expect(() => refuseForeignWal(path)).not.toThrow()
    const legacy = join(folder(), 'legacy.sqlite')
    const db = new Database(legacy, { create: true })
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('CREATE TABLE t (x)')
    expect(headerMark(legacy)).toBe(0)
    expect(statSync(`${legacy}-wal`).size).toBeGreaterThan(0)
    expect(() => refuseForeignWal(legacy)).not.toThrow()
    db.close()
  })

  test('a backup is marked closed: copied by hand over a database beside a stale log, it is refused', () => {
    const dir = folder()
    const path = join(dir, 'store.sqlite')
    const db = withLiveLog(path, 6)
    const backup = join(dir, 'backup.sqlite')
    backupDatabase(db, backup)
    expect(headerMark(backup)).toBe(CLOSED_MARK)
    db.run("INSERT INTO pets (name, category_id, status) VALUES ('after the backup', 1, 'available')")
    // The operator copies the backup over the file and forgets the old log.
    copyFileSync(backup, path)
    expect(() => refuseForeignWal(path)).toThrow(ForeignWalError)
    db.close()
  })
})
