import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
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
})
