import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NewerSchemaError } from '../../src/db/migration'
import { migrateSqlite, openDatabase } from '../../src/db/sqlite'
import { sqliteMigrations } from '../../src/db/sqlite_migrations'

describe('migrateSqlite', () => {
  test('numbers sqliteMigrations consecutively from 1', () => {
    expect(sqliteMigrations.map((m) => m.version)).toEqual(sqliteMigrations.map((_, i) => i + 1))
  })

  test('applies every migration once and records the version', () => {
    const db = new Database(':memory:')
    expect(migrateSqlite(db, sqliteMigrations)).toEqual(sqliteMigrations.map((m) => m.version))
    expect(migrateSqlite(db, sqliteMigrations)).toEqual([])
    expect(db.query('PRAGMA user_version').get()).toEqual({ user_version: sqliteMigrations.length })
  })

  test('applies only the sqliteMigrations a database has not seen', () => {
    const db = new Database(':memory:')
    migrateSqlite(db, sqliteMigrations.slice(0, 1))
    expect(migrateSqlite(db, sqliteMigrations)).toEqual(sqliteMigrations.slice(1).map((m) => m.version))
  })

  test('rolls a failing migration back whole', () => {
    const db = new Database(':memory:')
    const broken = [
      ...sqliteMigrations,
      { version: sqliteMigrations.length + 1, name: 'broken', sql: 'CREATE TABLE t (x); SELECT nope FROM nowhere;' },
    ]
    expect(() => migrateSqlite(db, broken)).toThrow()
    expect(db.query('PRAGMA user_version').get()).toEqual({ user_version: sqliteMigrations.length })
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 't'").get()).toBeNull()
  })

  test('refuses a database from a newer build, naming both versions, and changes nothing', () => {
    const db = new Database(':memory:')
    migrateSqlite(db, sqliteMigrations)
    const newer = sqliteMigrations.length + 3
    db.exec(`PRAGMA user_version = ${newer}`)
    expect(() => migrateSqlite(db, sqliteMigrations)).toThrow(new NewerSchemaError(newer, sqliteMigrations.length))
    expect(() => migrateSqlite(db, sqliteMigrations)).toThrow(
      `schema version ${newer}, newer than this build's ${sqliteMigrations.length}`,
    )
    expect(db.query('PRAGMA user_version').get()).toEqual({ user_version: newer })
  })
})

describe('openDatabase', () => {
  test('creates the folder and opens in WAL mode with the chosen durability', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-db-'))
    try {
      const db = openDatabase(join(dir, 'nested', 'store.sqlite'), { synchronous: 'normal' })
      expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
      expect(db.query('PRAGMA synchronous').get()).toEqual({ synchronous: 1 })
      db.close()
      // FULL unless told otherwise: every commit synced.
      const full = openDatabase(join(dir, 'nested', 'store.sqlite'))
      expect(full.query('PRAGMA synchronous').get()).toEqual({ synchronous: 2 })
      full.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test.each([
    ['SELECT * FROM pets WHERE status = ?1 AND id > ?2 ORDER BY id LIMIT ?3', ['available', 0, 21], 'pets_status_id'],
    ['SELECT * FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2', [0, 21], 'INTEGER PRIMARY KEY'],
  ])('serves keyset paging from an index: %s', (sql, params, index) => {
    const db = openDatabase(':memory:')
    const plan = db.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as [string | number])) as { detail: string }[]
    const details = plan.map((row) => row.detail).join('\n')
    expect(details).toContain(index)
    expect(details).not.toContain('TEMP B-TREE')
  })
})
