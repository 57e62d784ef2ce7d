import { afterEach, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { migratePostgres, openPostgres, redactedUrl } from '../../src/db/postgres'
import { postgresMigrations } from '../../src/db/postgres_migrations'
import { hashApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { KEY_POLL_MS, PostgresKeyStore } from '../../src/keys/postgres_store'
import { PostgresPetStore } from '../../src/pets/postgres_store'
import { expectError, makeTestApp } from '../helpers'
import { eventually } from '../process_helpers'
import { dropSchema, SHARED_STORES, TEST_DATABASE_URL, uniqueName } from '../shared_services'

const free = { name: 'a', plan: 'free', rpm: 60, rpd: 1000 } as const
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** `count` pools on one fresh schema, as that many instances would hold. */
async function instances(count: number) {
  const schema = uniqueName('test')
  cleanups.push(() => dropSchema(schema))
  const pools = []
  for (let i = 0; i < count; i++) {
    const sql = await openPostgres(TEST_DATABASE_URL!, { schema, max: 3 })
    cleanups.push(() => sql.close())
    pools.push(sql)
  }
  return pools
}

describe.skipIf(!SHARED_STORES)('PostgreSQL', () => {
  test('migrations apply once, also when three instances start together', async () => {
    const schema = uniqueName('test')
    cleanups.push(() => dropSchema(schema))
    const pools = await Promise.all([1, 2, 3].map(() => openPostgres(TEST_DATABASE_URL!, { schema, max: 2 })))
    cleanups.push(async () => void (await Promise.all(pools.map((sql) => sql.close()))))
    const [sql] = pools
    expect(
      (await sql!`SELECT version FROM schema_migrations ORDER BY version`).map(
        (row: { version: number }) => row.version,
      ),
    ).toEqual([1, 2, 3])
    expect(await migratePostgres(sql!, postgresMigrations)).toEqual([])
  })

  test('ids are BIGINT in the table and numbers in JSON, exact up to 2^53 - 1', async () => {
    const [sql] = await instances(1)
    const pets = new PostgresPetStore(sql!)
    const [{ type }] =
      await sql!`SELECT data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'pets' AND column_name = 'id'`
    expect(type).toBe('bigint')
    await sql!`ALTER TABLE pets ALTER COLUMN id RESTART WITH 9007199254740990`
    const created = await pets.create({ name: 'Big', categoryId: 9007199254740991 })
    expect(created).toEqual({
      kind: 'created',
      pet: { id: 9007199254740990, name: 'Big', categoryId: 9007199254740991, status: 'available' },
    })
    expect(await pets.get(9007199254740990)).toEqual({
      id: 9007199254740990,
      name: 'Big',
      categoryId: 9007199254740991,
      status: 'available',
    })
    await pets.create({ name: 'Last', categoryId: 1 })
    // The identity stops at 2^53 - 1 rather than hand out an id JSON would round.
    await expect(pets.create({ name: 'Beyond', categoryId: 1 })).rejects.toThrow()
  })

  test('a pet created on one instance is listed by another, in id order', async () => {
    const [a, b] = await instances(2)
    const onA = new PostgresPetStore(a!)
    const onB = new PostgresPetStore(b!)
    for (const name of ['x', 'y', 'z']) await onA.create({ name, categoryId: 1 })
    const page = await onB.list({ limit: 2 })
    expect(page.pets.map((p) => p.name)).toEqual(['x', 'y'])
    expect(page.more).toBe(true)
    expect((await onB.list({ limit: 2, after: page.pets[1]!.id })).pets.map((p) => p.name)).toEqual(['z'])
  })

  test('one Idempotency-Key creates one pet even when two instances race with it', async () => {
    const [a, b] = await instances(2)
    const stores = [new PostgresPetStore(a!), new PostgresPetStore(b!)]
    const claim = { apiKeyId: 1, key: 'race', requestHash: 'same-body', now: Date.now() }
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => stores[i % 2]!.create({ name: 'Rex', categoryId: 1 }, claim)),
    )
    expect(outcomes.filter((o) => o.kind === 'created').length).toBe(1)
    expect(outcomes.filter((o) => o.kind === 'replayed').length).toBe(9)
    const ids = new Set(outcomes.map((o) => (o.kind === 'conflict' ? 0 : o.pet.id)))
    expect(ids.size).toBe(1)
    expect(await a!`SELECT count(*)::int AS n FROM pets`).toEqual([{ n: 1 }])
    expect(
      await stores[1]!.create({ name: 'Other', categoryId: 1 }, { ...claim, requestHash: 'another-body' }),
    ).toEqual({ kind: 'conflict' })
  })

  test(`a revocation or plan change by another process reaches an instance within ${KEY_POLL_MS} ms polling (under a second)`, async () => {
    const [server, cli] = await instances(2)
    const serving = await PostgresKeyStore.open(server!, { pollMs: KEY_POLL_MS })
    cleanups.push(async () => serving.close())
    const admin = await PostgresKeyStore.open(cli!)
    const { key, secret } = await issueKey(admin, free)
    const hash = hashApiKey(secret)
    expect(await eventually(async () => serving.findActive(hash)?.plan, 'free', 1000)).toBe('free')

    let started = performance.now()
    await admin.setPlan(key.id, 'pro', { rpm: 300, rpd: 10_000 })
    expect(await eventually(async () => serving.findActive(hash)?.rpm, 300, 1000)).toBe(300)
    const planSeenAfter = performance.now() - started

    started = performance.now()
    await admin.revoke(key.id)
    expect(await eventually(async () => serving.findActive(hash), undefined, 1000)).toBeUndefined()
    const revokeSeenAfter = performance.now() - started
    expect(Math.max(planSeenAfter, revokeSeenAfter)).toBeLessThan(1000)
  })

  test('stores the key hash only, and timestamps as timestamptz', async () => {
    const [sql] = await instances(1)
    const keys = await PostgresKeyStore.open(sql!)
    const { key, secret } = await issueKey(keys, free)
    const dump = JSON.stringify(await sql!`SELECT * FROM api_keys`)
    expect(dump).not.toContain(secret)
    expect(dump).toContain(hashApiKey(secret))
    expect(key.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(await keys.createFirst('another-hash', free)).toBeUndefined()
    expect((await keys.list()).map((k) => k.id)).toEqual([key.id])
  })
})

describe('PostgreSQL out of reach', () => {
  test('a request that needs it gets 503 unavailable with Retry-After, not a 500', async () => {
    const sql = new SQL('postgres://nobody@127.0.0.1:1/none', { max: 1, connectionTimeout: 2 })
    cleanups.push(() => sql.close())
    const pets = new PostgresPetStore(sql)
    const { call } = await makeTestApp({ pets })
    const response = await call('GET', '/v1/pets')
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('1')
    expect(await response.json()).toEqual({
      code: 'unavailable',
      message: 'The database does not answer; retry shortly',
      status: 503,
    })
    await expectError(await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } }), 503, 'unavailable')
    expect(await pets.answers()).toBe(false)
  })
})

describe('redactedUrl', () => {
  test('hides the password of a database URL', () => {
    expect(redactedUrl('postgres://app:s3cret@db.example:5432/pets')).toBe('postgres://app:***@db.example:5432/pets')
    expect(redactedUrl('postgres://app@db.example/pets')).toBe('postgres://app@db.example/pets')
  })
})
