import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { postPet, runCli, startFreshServer } from './process_helpers'

describe('backup', () => {
  test('copies a database that a running server is writing, WAL contents included', async () => {
    const { server, key, db, dir, cleanup } = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-backup-')
    try {
      for (let i = 0; i < 5; i++) await postPet(server.url, key, { name: `pet ${i}`, categoryId: 1 })
      const copy = join(dir, 'copy.sqlite')
      const result = await runCli(['backup', copy, '--db', db])
      expect(result.code).toBe(0)
      const names = new Database(copy, { readonly: true }).query('SELECT name FROM pets ORDER BY id').all()
      expect(names).toEqual(Array.from({ length: 5 }, (_, i) => ({ name: `pet ${i}` })))
      expect(await server.stop()).toBe(0)

      const again = await runCli(['backup', copy, '--db', db])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain('already exists')
    } finally {
      await cleanup()
    }
  })

  test.each([[['backup']], [['backup', 'a', 'b']], [['backup', 'a', '--colour']]])(
    'exits 2 with one line and where the usage is for %p',
    async (args) => {
      const result = await runCli(args)
      expect(result.code).toBe(2)
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^(backup takes one FILE|Unknown option).* \(animal-store --help shows the usage\)$/),
      ])
    },
  )
})
