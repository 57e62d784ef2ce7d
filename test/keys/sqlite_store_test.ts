import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DATA_VERSION_CHECK_MS } from '../../src/db/data_version'
import { openDatabase } from '../../src/db/sqlite'
import { hashApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-keys-'))
  dirs.push(dir)
  return join(dir, 'keys.sqlite')
}

const free = { name: 'a', plan: 'free', rpm: 60, rpd: 1000 } as const

describe('SqliteKeyStore', () => {
  test('creates a first key only while there is none', async () => {
    const store = new SqliteKeyStore(openDatabase(':memory:'))
    const first = store.createFirst('hash-1', free)
    expect(first).toMatchObject({ id: 1, name: 'a' })
    expect(store.createFirst('hash-2', free)).toBeUndefined()
    expect(store.findActive('hash-1')).toEqual(first!)
  })

  test('stores only the hash, never the secret', async () => {
    const db = openDatabase(':memory:')
    const store = new SqliteKeyStore(db)
    const { secret } = await issueKey(store, free)
    const dump = JSON.stringify(db.query('SELECT * FROM api_keys').all())
    expect(dump).not.toContain(secret)
    expect(dump).not.toContain(secret.slice(4))
    expect(dump).toContain(hashApiKey(secret))
  })

  test('finds an active key by hash, with its plan and limits', async () => {
    const store = new SqliteKeyStore(openDatabase(':memory:'))
    const { key, secret } = await issueKey(store, { name: 'big', plan: 'enterprise', rpm: 5000, rpd: 900_000 })
    expect(store.findActive(hashApiKey(secret))).toEqual(key)
    expect(key).toMatchObject({ name: 'big', plan: 'enterprise', rpm: 5000, rpd: 900_000, revokedAt: null })
  })

  test('revokes once and keeps the first revocation time', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z')
    const store = new SqliteKeyStore(openDatabase(':memory:'), { clock: () => now })
    const { key, secret } = await issueKey(store, free)
    expect(store.revoke(key.id)?.revokedAt).toBe('2026-01-01T00:00:00.000Z')
    now = Date.parse('2026-02-01T00:00:00Z')
    expect(store.revoke(key.id)?.revokedAt).toBe('2026-01-01T00:00:00.000Z')
    expect(store.findActive(hashApiKey(secret))).toBeUndefined()
    expect(store.revoke(999)).toBeUndefined()
  })

  test('changes the plan of an active key only', async () => {
    const store = new SqliteKeyStore(openDatabase(':memory:'))
    const { key, secret } = await issueKey(store, free)
    expect(store.setPlan(key.id, 'business', { rpm: 1000, rpd: 100_000 })).toMatchObject({
      plan: 'business',
      rpm: 1000,
    })
    expect(store.findActive(hashApiKey(secret))?.plan).toBe('business')
    store.revoke(key.id)
    expect(store.setPlan(key.id, 'pro', { rpm: 300, rpd: 10_000 })).toBeUndefined()
  })

  test("sees another connection's revocation and plan change within DATA_VERSION_CHECK_MS", async () => {
    const path = tempDbPath()
    let now = 1_000_000
    const server = new SqliteKeyStore(openDatabase(path), { clock: () => now })
    const cli = new SqliteKeyStore(openDatabase(path))
    const { key, secret } = await issueKey(cli, free)
    const hash = hashApiKey(secret)
    expect(server.findActive(hash)?.plan).toBe('free')
    cli.setPlan(key.id, 'pro', { rpm: 300, rpd: 10_000 })
    now += DATA_VERSION_CHECK_MS - 1
    expect(server.findActive(hash)?.plan).toBe('free')
    now += 1
    expect(server.findActive(hash)).toMatchObject({ plan: 'pro', rpm: 300, rpd: 10_000 })
    cli.revoke(key.id)
    now += DATA_VERSION_CHECK_MS
    expect(server.findActive(hash)).toBeUndefined()
    expect(DATA_VERSION_CHECK_MS).toBeLessThan(1000)
  })

  test('lists every key, revoked ones included, in id order', async () => {
    const store = new SqliteKeyStore(openDatabase(':memory:'))
    await issueKey(store, free)
    const { key } = await issueKey(store, { ...free, name: 'b' })
    store.revoke(key.id)
    expect(store.list().map((k) => [k.name, k.revokedAt === null])).toEqual([
      ['a', true],
      ['b', false],
    ])
  })
})
