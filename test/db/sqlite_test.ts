import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NewerSchemaError } from '../../src/db/migration'
import { migrateSqlite, openDatabase } from '../../src/db/sqlite'
import { sqliteMigrations } from '../../src/db/sqlite_migrations'
import { PET_PAGE, PET_PAGE_BY_STATUS } from '../../src/pets/sqlite_store'

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

describe('a version-1.1 database', () => {
  // Written by the service at baa4558 (schema 5): 31 pets made through the API (10 pending, 10 sold, 11 available,
  // one with an Idempotency-Key), the key that made them, the limiter's saved state; stopped cleanly.
  const FIXTURE = join(import.meta.dir, 'fixtures', 'v1.1.sqlite')

  test('is upgraded without loss: every row stays, and the new counts match the pets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-upgrade-'))
    try {
      const path = join(dir, 'store.sqlite')
      copyFileSync(FIXTURE, path)
      const before = new Database(path, { readonly: true })
      const rows = (table: string, db: Database) => db.query(`SELECT * FROM ${table} ORDER BY rowid`).all()
      const kept = Object.fromEntries(
        ['pets', 'api_keys', 'idempotency_keys', 'limiter_state'].map((table) => [table, rows(table, before)]),
      )
      expect(before.query('PRAGMA user_version').get()).toEqual({ user_version: 5 })
      before.close()
      const db = openDatabase(path, { serving: true })
      expect(db.query('PRAGMA user_version').get()).toEqual({ user_version: sqliteMigrations.length })
      const { limiter_state: savedLimits, ...tables } = kept
      for (const [table, was] of Object.entries(tables))
        expect({ table, rows: rows(table, db) }).toEqual({ table, rows: was })
      // The one saved limiter state becomes a stopped owner's snapshot, for the next start to read back.
      const [saved] = savedLimits as { saved_at: number; day: number; counters: Uint8Array; extra: string }[]
      expect(db.query('SELECT host, generation, seen_at, stopped FROM limiter_owners').all()).toEqual([
        { host: '', generation: 0, seen_at: saved!.saved_at, stopped: 1 },
      ])
      expect(db.query('SELECT generation, part, day, counters, extra FROM limiter_parts').all()).toEqual([
        { generation: 0, part: 0, day: saved!.day, counters: saved!.counters, extra: saved!.extra },
      ])
      expect((kept.pets as unknown[]).length).toBe(31)
      expect(db.query('SELECT status, count FROM pet_counts ORDER BY status').all()).toEqual([
        { status: 'available', count: 11 },
        { status: 'pending', count: 10 },
        { status: 'sold', count: 10 },
      ])
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
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
    [PET_PAGE_BY_STATUS, ['available', 0, 21], 'pets_status_id'],
    [PET_PAGE, [0, 21], 'INTEGER PRIMARY KEY'],
  ])('serves keyset paging from an index: %s', (sql, params, index) => {
    const db = openDatabase(':memory:')
    const plan = db.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as [string | number])) as { detail: string }[]
    const details = plan.map((row) => row.detail).join('\n')
    expect(details).toContain(index)
    expect(details).not.toContain('TEMP B-TREE')
  })
})
