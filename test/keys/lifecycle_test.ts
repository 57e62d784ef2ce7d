import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SQL } from 'bun'
import { migratePostgres, openPostgres } from '../../src/db/postgres'
import { postgresMigrations } from '../../src/db/postgres_migrations'
import { migrateSqlite, openDatabase } from '../../src/db/sqlite'
import { sqliteMigrations } from '../../src/db/sqlite_migrations'
import { generateApiKey, hashApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { KEY_POLL_MS, PostgresKeyStore } from '../../src/keys/postgres_store'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import { type ApiKey, KEY_CHANGE_SEEN_WITHIN_MS, type KeyStore } from '../../src/keys/store'
import { cleanupsAfterEach, eventually, tempDir } from '../helpers'
import { dropSchema, postgresPools, SHARED_STORES, TEST_DATABASE_URL, uniqueName } from '../shared_services'

const free = { name: 'shop', plan: 'free', rpm: 60, rpd: 1000 } as const
const cleanups = cleanupsAfterEach()

/** Two processes' stores on one database: a serving one (kept fresh, as a server's) and the CLI's. */
interface TwoProcesses {
  serving: KeyStore
  cli: KeyStore
}

const ENGINES: { name: string; skip: boolean; open(): Promise<TwoProcesses> }[] = [
  {
    name: 'SQLite',
    skip: false,
    async open() {
      const { dir, cleanup } = tempDir('animal-store-lifecycle-')
      const path = join(dir, 'keys.sqlite')
      const servingDb = openDatabase(path)
      const cliDb = openDatabase(path)
      cleanups.push(
        cleanup,
        () => servingDb.close(),
        () => cliDb.close(),
      )
      return { serving: new SqliteKeyStore(servingDb), cli: new SqliteKeyStore(cliDb) }
    },
  },
  {
    name: 'PostgreSQL',
    skip: !SHARED_STORES,
    async open() {
      const [server, cli] = await postgresPools(2, cleanups)
      const serving = await PostgresKeyStore.open(server!, { pollMs: KEY_POLL_MS })
      cleanups.push(() => serving.close())
      return { serving, cli: await PostgresKeyStore.open(cli!) }
    },
  },
]

/** What the serving store holds for `secret`, asked the way a request asks (SQLite reloads on lookup). */
function seen(store: KeyStore, secret: string): Promise<ApiKey | undefined> {
  return Promise.resolve(store.findActive(hashApiKey(secret)))
}

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`the key lifecycle on ${engine.name}`, () => {
    test('a key is read-write and never expires unless made otherwise', async () => {
      const { cli } = await engine.open()
      const { key } = await issueKey(cli, free)
      expect(key).toMatchObject({
        access: 'read-write',
        expiresAt: null,
        lastUsedAt: null,
        rolledFrom: null,
        quotaId: key.id,
        quotaResetAt: null,
      })
      const expiresAt = '2031-01-31T12:00:00.000Z'
      const { key: limited } = await issueKey(cli, { ...free, access: 'read-only', expiresAt })
      expect(limited).toMatchObject({ access: 'read-only', expiresAt })
      expect(await cli.get(limited.id)).toEqual(limited)
    })

    test(`expiry, access and a quota reset by another process reach a serving store within ${KEY_CHANGE_SEEN_WITHIN_MS} ms`, async () => {
      const { serving, cli } = await engine.open()
      const { key, secret } = await issueKey(cli, free)
      const resets: ApiKey[] = []
      serving.onQuotaReset((reset) => resets.push(reset))
      await eventually(async () => (await seen(serving, secret))?.id, key.id, KEY_CHANGE_SEEN_WITHIN_MS)

      const expiresAt = '2031-01-31T00:00:00.000Z'
      await cli.setExpiry(key.id, expiresAt)
      expect(await eventually(async () => (await seen(serving, secret))?.expiresAt, expiresAt)).toBe(expiresAt)
      await cli.setAccess(key.id, 'read-only')
      expect(await eventually(async () => (await seen(serving, secret))?.access, 'read-only')).toBe('read-only')
      await cli.setExpiry(key.id, null)
      expect(await eventually(async () => (await seen(serving, secret))?.expiresAt, null)).toBeNull()

      // The first look only took note; each reset is told once, with the key.
      expect(resets).toEqual([])
      const reset = await cli.resetQuota(key.id)
      expect(reset?.quotaResetAt).toMatch(/^\d{4}-\d\d-\d\dT/)
      const resetsSeen = async () => {
        await seen(serving, secret)
        return resets.length
      }
      expect(await eventually(resetsSeen, 1)).toBe(1)
      expect(resets[0]).toMatchObject({ id: key.id, quotaResetAt: reset!.quotaResetAt })
      await Bun.sleep(2 * KEY_POLL_MS)
      await seen(serving, secret)
      expect(resets).toHaveLength(1)
    })

    test('a roll makes a successor on the same quota, and ends the old key when the grace does', async () => {
      const { serving, cli } = await engine.open()
      const { key } = await issueKey(cli, {
        name: 'storefront',
        plan: 'pro',
        rpm: 300,
        rpd: 10_000,
        access: 'read-only',
      })
      const secret = generateApiKey()
      const graceEnd = new Date(Date.now() + 3_600_000).toISOString()
      const rolled = await cli.roll(key.id, hashApiKey(secret), graceEnd, null)
      expect(rolled?.old).toMatchObject({ id: key.id, expiresAt: graceEnd, quotaId: key.id })
      expect(rolled?.successor).toMatchObject({
        name: 'storefront',
        plan: 'pro',
        rpm: 300,
        rpd: 10_000,
        access: 'read-only',
        expiresAt: null,
        rolledFrom: key.id,
        quotaId: key.id,
      })
      expect(
        await eventually(
          async () => (await seen(serving, secret))?.id,
          rolled!.successor.id,
          KEY_CHANGE_SEEN_WITHIN_MS,
        ),
      ).toBe(rolled!.successor.id)

      // Rolled again, the line keeps its first key's quota; a longer grace never extends an earlier end.
      const third = await cli.roll(
        rolled!.successor.id,
        hashApiKey(generateApiKey()),
        graceEnd,
        '2031-01-01T00:00:00.000Z',
      )
      expect(third?.successor).toMatchObject({ rolledFrom: rolled!.successor.id, quotaId: key.id })
      expect(third?.successor.expiresAt).toBe('2031-01-01T00:00:00.000Z')
      const soon = new Date(Date.now() + 60_000).toISOString()
      const later = new Date(Date.now() + 7_200_000).toISOString()
      const again = await cli.roll(third!.successor.id, hashApiKey(generateApiKey()), soon, null)
      expect(again?.old.expiresAt).toBe(soon)
      expect((await cli.roll(third!.successor.id, hashApiKey(generateApiKey()), later, null))?.old.expiresAt).toBe(soon)
    })

    test('a revoked, expired or unknown key cannot be rolled or changed', async () => {
      const { cli } = await engine.open()
      const { key: revoked } = await issueKey(cli, free)
      await cli.revoke(revoked.id)
      const { key: expired } = await issueKey(cli, { ...free, expiresAt: '2020-01-01T00:00:00.000Z' })
      const graceEnd = new Date(Date.now() + 60_000).toISOString()
      for (const id of [revoked.id, expired.id, 999_999])
        expect(await cli.roll(id, hashApiKey(generateApiKey()), graceEnd, null)).toBeUndefined()
      for (const id of [revoked.id, 999_999]) {
        expect(await cli.setExpiry(id, null)).toBeUndefined()
        expect(await cli.setAccess(id, 'read-only')).toBeUndefined()
        expect(await cli.resetQuota(id)).toBeUndefined()
      }
      // An expired key can be given a new expiry: that is how an operator extends one.
      expect((await cli.setExpiry(expired.id, null))?.expiresAt).toBeNull()
      expect((await cli.list()).length).toBe(2)
    })

    test('last use is recorded per minute, never moved back, and is no change the servers reload for', async () => {
      const { serving, cli } = await engine.open()
      const { key: a } = await issueKey(cli, free)
      const { key: b } = await issueKey(cli, free)
      await serving.recordUse([a.id, b.id], '2026-11-23T14:05:00.000Z')
      await serving.recordUse([a.id], '2026-11-23T14:04:00.000Z')
      const byId = new Map((await cli.list()).map((key) => [key.id, key.lastUsedAt]))
      expect(byId.get(a.id)).toBe('2026-11-23T14:05:00.000Z')
      expect(byId.get(b.id)).toBe('2026-11-23T14:05:00.000Z')
      await serving.recordUse([a.id], '2026-11-23T14:06:00.000Z')
      expect((await cli.get(a.id))?.lastUsedAt).toBe('2026-11-23T14:06:00.000Z')
    })
  })
}

describe('a database written by the previous release is upgraded in place, every key still valid', () => {
  const previousRelease = <M extends { version: number }>(migrations: readonly M[], version: number) =>
    migrations.filter((migration) => migration.version <= version)

  test('on SQLite (schema version 4)', async () => {
    const { dir, cleanup } = tempDir('animal-store-upgrade-')
    cleanups.push(cleanup)
    const path = join(dir, 'old.sqlite')
    const { Database } = await import('bun:sqlite')
    const old = new Database(path, { create: true, strict: true })
    migrateSqlite(old, previousRelease(sqliteMigrations, 4))
    const secrets = [generateApiKey(), generateApiKey()]
    // The rows as the previous release's store wrote them: without the new columns.
    for (const [i, secret] of secrets.entries())
      old
        .prepare('INSERT INTO api_keys (hash, name, plan, rpm, rpd, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(hashApiKey(secret), `old ${i}`, 'pro', 300, 10_000, '2026-01-01T00:00:00.000Z')
    old.close()

    const db = openDatabase(path)
    cleanups.push(() => db.close())
    expect((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(
      sqliteMigrations.at(-1)!.version,
    )
    const store = new SqliteKeyStore(db)
    for (const [i, secret] of secrets.entries())
      expect(store.findActive(hashApiKey(secret))).toMatchObject({
        name: `old ${i}`,
        plan: 'pro',
        access: 'read-write',
        expiresAt: null,
        quotaId: i + 1,
      })
  })

  test.skipIf(!SHARED_STORES)('on PostgreSQL (schema version 3)', async () => {
    const schema = uniqueName('upgrade')
    cleanups.push(() => dropSchema(schema))
    const setup = new SQL(TEST_DATABASE_URL!, { max: 1 })
    await setup`CREATE SCHEMA ${setup(schema)}`
    await setup.close()
    const old = new SQL(TEST_DATABASE_URL!, { max: 1, connection: { search_path: schema } })
    await migratePostgres(old, previousRelease(postgresMigrations, 3))
    const secret = generateApiKey()
    await old`INSERT INTO api_keys (hash, name, plan, rpm, rpd, created_at)
      VALUES (${hashApiKey(secret)}, 'old', 'business', 1000, 100000, now())`
    await old.close()

    const sql = await openPostgres(TEST_DATABASE_URL!, { schema, max: 1 })
    cleanups.push(() => sql.close())
    const [{ version }] = await sql`SELECT max(version) AS version FROM schema_migrations`
    expect(version).toBe(postgresMigrations.at(-1)!.version)
    const store = await PostgresKeyStore.open(sql)
    expect(store.findActive(hashApiKey(secret))).toMatchObject({ name: 'old', plan: 'business', access: 'read-write' })
  })
})
