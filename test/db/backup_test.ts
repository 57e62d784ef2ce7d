import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { printedKey, runCli, startServer, tempDir } from '../process_helpers'

describe('backup', () => {
  test('copies a database that a running server is writing, WAL contents included', async () => {
    const workspace = tempDir('animal-store-backup-')
    try {
      const db = join(workspace.dir, 'store.sqlite')
      const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
      const key = printedKey(server.stderr())
      for (let i = 0; i < 5; i++) {
        await fetch(`${server.url}/v1/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `pet ${i}`, categoryId: 1 }),
        })
      }
      const copy = join(workspace.dir, 'copy.sqlite')
      const result = await runCli(['backup', copy, '--db', db])
      expect(result.code).toBe(0)
      const names = new Database(copy, { readonly: true }).query('SELECT name FROM pets ORDER BY id').all()
      expect(names).toEqual(Array.from({ length: 5 }, (_, i) => ({ name: `pet ${i}` })))
      expect(await server.stop()).toBe(0)

      const again = await runCli(['backup', copy, '--db', db])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain('already exists')
    } finally {
      workspace.cleanup()
    }
  })

  test.each([[['backup']], [['backup', 'a', 'b']], [['backup', 'a', '--colour']]])('exits 2 with usage for %p', async (args) => {
    const result = await runCli(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Usage:')
  })
})
