import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { closeSync, copyFileSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/sqlite'
import { sqliteMigrations } from '../../src/db/sqlite_migrations'
import { cleanupsAfterEach, json, tempDir } from '../helpers'
import { postPet, runCli, startFreshServer, startServer } from './process_helpers'

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
        `Storage error: DATABASE_PATH: cannot open "${path}": the database is at schema version ${newer}, newer than this build's ${sqliteMigrations.length}: a newer Animal Store wrote it; run that build, or restore a backup this one made`,
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
    expect(lines[0]).toStartWith(`Storage error: DATABASE_PATH: `)
    expect(lines[0]).toMatch(/damaged|malformed/)
    expect(readFileSync(path).equals(before)).toBe(true)
  })
  test("another database's log beside a cleanly stopped one: serve and the CLI exit 2 naming it, nothing replayed; moved away, the pets are back", async () => {
    const ours = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-wal-')
    cleanups.push(() => ours.cleanup())
    for (const name of ['Rex', 'Tom', 'Kit']) await postPet(ours.server.url, ours.key, { name, categoryId: 1 })
    expect(await ours.server.stop()).toBe(0)
    // Another store, killed: its pets are only in its log, which someone copies beside ours.
    const other = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-wal-')
    cleanups.push(() => other.cleanup())
    for (const name of ['Foreign 1', 'Foreign 2']) await postPet(other.server.url, other.key, { name, categoryId: 1 })
    other.server.proc.kill(9)
    await other.server.proc.exited
    copyFileSync(`${other.db}-wal`, `${ours.db}-wal`)
    const before = readFileSync(ours.db)

    for (const args of [['serve'], ['keys', 'list']]) {
      const result = await runCli(args, { DATABASE_PATH: ours.db, PORT: '0', HOST: '127.0.0.1' })
      expect({ args, code: result.code }).toEqual({ args, code: 2 })
      expect(result.stderr.trim().split('\n')).toEqual([
        `Storage error: DATABASE_PATH: "${ours.db}-wal" is not this database's log: "${ours.db}" was closed cleanly, with no log left, so replaying this one could replace its data with another database's; move "${ours.db}-wal" and "${ours.db}-shm" out of the folder (keep them until you are sure), then start again`,
      ])
    }
    expect(readFileSync(ours.db).equals(before)).toBe(true)

    renameSync(`${ours.db}-wal`, join(ours.dir, 'moved-away.wal'))
    const again = await startServer({ DATABASE_PATH: ours.db, LOG_LEVEL: 'warn' })
    cleanups.push(() => again.stop())
    const pets = await json(await fetch(`${again.url}/v1/pets`, { headers: { authorization: `Bearer ${ours.key}` } }))
    expect((pets as { name: string }[]).map((pet) => pet.name)).toEqual(['Rex', 'Tom', 'Kit'])
  }, 60_000)
})
