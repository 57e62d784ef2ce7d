import { expect, test } from 'bun:test'
import { migrateSqlite, openDatabase } from '../../src/db/sqlite'
import { sqliteMigrations } from '../../src/db/sqlite_migrations'
import { issueFirstKey, issueKey } from '../../src/keys/issue'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'

test('issueFirstKey only reads a store that has keys, so a database it cannot write still starts', async () => {
  const db = openDatabase(':memory:')
  const keys = new SqliteKeyStore(db)
  await issueKey(keys, { name: 'existing', plan: 'free', rpm: 60, rpd: 1000 })
  // SQLite refuses every write from here on, as on a read-only file or mount.
  db.exec('PRAGMA query_only = ON')
  expect(await issueFirstKey(keys, { name: 'first key', plan: 'free', rpm: 60, rpd: 1000 })).toBeUndefined()
  expect(() => keys.revoke(1)).toThrow(/readonly/)
})

test('issueFirstKey makes the first key on an empty store, once', async () => {
  const keys = new SqliteKeyStore(openDatabase(':memory:'))
  const first = await issueFirstKey(keys, { name: 'first key', plan: 'free', rpm: 60, rpd: 1000 })
  expect(first?.key.name).toBe('first key')
  expect(await issueFirstKey(keys, { name: 'again', plan: 'free', rpm: 60, rpd: 1000 })).toBeUndefined()
  expect(keys.list()).toHaveLength(1)
})

test('an up-to-date database is opened without a write transaction (the migrations are not even begun)', () => {
  const db = openDatabase(':memory:')
  db.exec('PRAGMA query_only = ON')
  expect(migrateSqlite(db, sqliteMigrations)).toEqual([])
})
