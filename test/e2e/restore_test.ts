import { describe, expect, test } from 'bun:test'
import { closeSync, existsSync, openSync, readdirSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupsAfterEach, json } from '../helpers'
import { postPet, runCli, startFreshServer, startServer } from './process_helpers'

const cleanups = cleanupsAfterEach()

async function names(url: string, key: string): Promise<string[]> {
  const response = await fetch(`${url}/v1/pets?limit=100`, { headers: { authorization: `Bearer ${key}` } })
  return ((await json(response)) as { name: string }[]).map((pet) => pet.name)
}

describe('restore', () => {
  test('puts a backup in place: refused while a server holds the file, then done with the old file kept and no stale WAL', async () => {
    const fresh = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-restore-')
    cleanups.push(() => fresh.cleanup())
    const { server, key, db, dir } = fresh
    for (const name of ['Rex', 'Tom']) await postPet(server.url, key, { name, categoryId: 1 })
    const backup = join(dir, 'backup.sqlite')
    expect((await runCli(['backup', backup, '--db', db])).code).toBe(0)
    await postPet(server.url, key, { name: 'After the backup', categoryId: 1 })

    const refused = await runCli(['restore', backup, '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('is open in another process (a running server?): stop it, then restore')
    expect(await names(server.url, key)).toEqual(['Rex', 'Tom', 'After the backup'])
    expect(await server.stop()).toBe(0)

    // A stale log beside the file, as a crash or a careless copy leaves it: it must never be replayed.
    writeFileSync(`${db}-wal`, 'not this database’s log')
    const restored = await runCli(['restore', backup, '--db', db])
    expect(restored.code).toBe(0)
    expect(restored.stderr).toMatch(/^Restored .* as .*; the database it replaced is kept as .*\.replaced-/)
    expect(readdirSync(dir).filter((name) => name.includes('.replaced-'))).toHaveLength(1)
    expect(existsSync(`${db}-shm`)).toBe(false)

    const again = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    cleanups.push(() => again.stop())
    expect(await names(again.url, key)).toEqual(['Rex', 'Tom'])
  }, 60_000)

  test('never resurrects a key: revocations, sooner expiries, read-only and lower limits made since the backup stay', async () => {
    const fresh = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-restore-keys-')
    cleanups.push(() => fresh.cleanup())
    const { server, key, db, dir } = fresh
    const create = async (name: string) =>
      JSON.parse((await runCli(['keys', 'create', '--plan', 'pro', '--name', name, '--json', '--db', db])).stdout) as {
        id: number
        key: string
      }
    const leaked = await create('leaked')
    const intern = await create('intern')
    const backup = join(dir, 'backup.sqlite')
    expect((await runCli(['backup', backup, '--db', db])).code).toBe(0)
    // Since the backup: one key revoked, one made read-only on the Free plan, and one made afterwards.
    expect((await runCli(['keys', 'revoke', String(leaked.id), '--db', db])).code).toBe(0)
    expect((await runCli(['keys', 'set-access', String(intern.id), 'read-only', '--db', db])).code).toBe(0)
    expect((await runCli(['keys', 'set-plan', String(intern.id), '--plan', 'free', '--db', db])).code).toBe(0)
    expect((await runCli(['keys', 'set-expiry', '1', '2099-01-01', '--db', db])).code).toBe(0)
    const later = await create('later')
    expect(await server.stop()).toBe(0)

    const restored = await runCli(['restore', backup, '--db', db])
    expect(restored.code).toBe(0)
    expect(restored.stderr).toContain(`Key ${leaked.id} (leaked) kept as the replaced database had it: revoked`)
    expect(restored.stderr).toContain(
      `Key ${intern.id} (intern) kept as the replaced database had it: read-only, limits 60/min, 1000/day`,
    )
    const again = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    cleanups.push(() => again.stop())
    const get = (secret: string) => fetch(`${again.url}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } })
    expect((await get(leaked.key)).status).toBe(401)
    const internAnswer = await get(intern.key)
    expect(internAnswer.status).toBe(200)
    expect(internAnswer.headers.get('x-ratelimit-limit')).toBe('60')
    const write = await fetch(`${again.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${intern.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    })
    expect(write.status).toBe(403)
    // A key made after the backup is not in the restored database; the first key keeps its new expiry.
    expect((await get(later.key)).status).toBe(401)
    expect((await get(key)).status).toBe(200)
  }, 60_000)

  test('refuses a damaged backup, or a file that is not one, and changes nothing', async () => {
    const fresh = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-restore-')
    cleanups.push(() => fresh.cleanup())
    const { server, key, db, dir } = fresh
    // Within the Free key's 60 a minute: several pages of pets.
    for (let i = 0; i < 55; i++) await postPet(server.url, key, { name: `pet ${i} ${'x'.repeat(200)}`, categoryId: 1 })
    const backup = join(dir, 'backup.sqlite')
    expect((await runCli(['backup', backup, '--db', db])).code).toBe(0)
    expect(await server.stop()).toBe(0)
    const before = statSync(db).mtimeMs
    const size = statSync(backup).size
    const file = openSync(backup, 'r+')
    writeSync(file, Buffer.alloc(4096, 0x5a), 0, 4096, Math.floor(size / 2 / 4096) * 4096)
    closeSync(file)
    const damaged = await runCli(['restore', backup, '--db', db])
    expect(damaged.code).toBe(1)
    expect(damaged.stderr).toContain('is damaged (PRAGMA quick_check:')
    const text = join(dir, 'notes.txt')
    writeFileSync(text, 'hello')
    const notADatabase = await runCli(['restore', text, '--db', db])
    expect(notADatabase.code).toBe(1)
    expect((await runCli(['restore', join(dir, 'missing.sqlite'), '--db', db])).stderr).toContain('does not exist')
    expect(statSync(db).mtimeMs).toBe(before)
    expect(readdirSync(dir).filter((name) => name.includes('.replaced-'))).toEqual([])
  }, 120_000)

  test.each([[['restore']], [['restore', 'a', 'b']]])('exits 2 with usage for %p', async (args) => {
    const result = await runCli(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('restore takes one FILE')
  })
})
