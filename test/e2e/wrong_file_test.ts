import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/sqlite'
import { sqliteMigrations } from '../../src/db/sqlite_migrations'
import { cleanupsAfterEach, tempDir } from '../helpers'
import { runCli } from './process_helpers'

const cleanups = cleanupsAfterEach()

describe('a wrong database file is refused, never served', () => {
  test('a database from a newer build: serve and the CLI exit 2 naming both schema versions', async () => {
    const { dir, cleanup } = tempDir()
    cleanups.push(cleanup)
    const path = join(dir, 'store.sqlite')
    openDatabase(path).close()
    const newer = sqliteMigrations.length + 1
    const db = new Database(path)
    db.exec(`PRAGMA user_version = ${newer}`)
    db.close()
    for (const args of [['serve'], ['keys', 'list']]) {
      const result = await runCli(args, { DATABASE_PATH: path, PORT: '0', HOST: '127.0.0.1' })
      expect({ args, code: result.code }).toEqual({ args, code: 2 })
      expect(result.stderr.trim().split('\n')).toEqual([
        `Configuration error: DATABASE_PATH: cannot open "${path}": the database is at schema version ${newer}, newer than this build's ${sqliteMigrations.length}: a newer Animal Store wrote it; run that build, or restore a backup this one made`,
      ])
    }
    // Left as it was: nothing was migrated or written.
    const after = new Database(path, { readonly: true })
    expect(after.query('PRAGMA user_version').get()).toEqual({ user_version: newer })
    after.close()
  })

  test('a database damaged in the middle: serve exits 2 with one line naming it, and writes nothing', async () => {
    const { dir, cleanup } = tempDir()
    cleanups.push(cleanup)
    const path = join(dir, 'store.sqlite')
    const db = openDatabase(path)
    const insert = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?1, 1, ?2)')
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`pet ${i} ${'x'.repeat(40)}`, 'available')
    })()
    // Everything into the main file, so the damage below hits the pets' pages.
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    db.close()
    const size = statSync(path).size
    const file = openSync(path, 'r+')
    writeSync(file, Buffer.alloc(4096, 0x5a), 0, 4096, Math.floor(size / 2 / 4096) * 4096)
    closeSync(file)
    const before = readFileSync(path)
    const result = await runCli(['serve'], { DATABASE_PATH: path, PORT: '0', HOST: '127.0.0.1' })
    expect(result.code).toBe(2)
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toStartWith(`Configuration error: DATABASE_PATH: `)
    expect(lines[0]).toMatch(/damaged|malformed/)
    expect(readFileSync(path).equals(before)).toBe(true)
  })
})
