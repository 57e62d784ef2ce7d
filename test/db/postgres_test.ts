import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SQL } from 'bun'
import { migratePostgres, openPostgres, redactedUrl } from '../../src/db/postgres'
import { postgresMigrations } from '../../src/db/postgres_migrations'
import { PostgresPetStore } from '../../src/pets/postgres_store'
import { cleanupsAfterEach, expectError, makeTestApp } from '../helpers'
import { dropSchema, postgresPools, SHARED_STORES, TEST_DATABASE_URL, uniqueName } from '../shared_services'

const cleanups = cleanupsAfterEach()

/**
 * A schema of its own holding what version 1.1 (baa4558) made, its four
 * migrations, and `count` one-connection clients of it (a process each).
 */
async function version11Database(count: number): Promise<[SQL, ...SQL[]]> {
  const schema = uniqueName('test')
  cleanups.push(() => dropSchema(schema))
  const setup = new SQL(TEST_DATABASE_URL!, { max: 1 })
  await setup`CREATE SCHEMA ${setup(schema)}`
  await setup.close()
  const clients = Array.from(
    { length: count },
    () => new SQL(TEST_DATABASE_URL!, { max: 1, connection: { search_path: schema } }),
  )
  cleanups.push(() => Promise.all(clients.map((client) => client.close())))
  const [first, ...others] = clients as [SQL, ...SQL[]]
  expect(await migratePostgres(first, postgresMigrations.slice(0, 4))).toEqual([1, 2, 3, 4])
  return [first, ...others]
}

describe.skipIf(!SHARED_STORES)('PostgreSQL', () => {
  test("docs/operations.md's commands make a role and database the service migrates and serves from", async () => {
    const docs = await Bun.file(join(import.meta.dir, '../../docs/operations.md')).text()
    const block = /psql -v ON_ERROR_STOP=1 <<'SQL'\n([\s\S]*?)\nSQL/.exec(docs)?.[1]
    expect(block).toContain('CREATE ROLE animal LOGIN')
    const role = uniqueName('role')
    const database = uniqueName('db')
    const admin = new SQL(TEST_DATABASE_URL!, { max: 1 })
    cleanups.push(async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      await admin.unsafe(`DROP ROLE IF EXISTS ${role}`)
      await admin.close()
    })
    // The statements as written, one at a time (CREATE DATABASE cannot run in a transaction block), under names of this test.
    for (const statement of block!
      .split(';')
      .map((text) => text.trim())
      .filter(Boolean))
      await admin.unsafe(statement.replace(/\banimal_store\b/, database).replace(/\banimal\b/, role))
    const url = new URL(TEST_DATABASE_URL!)
    url.username = role
    url.password = 'secret'
    url.pathname = `/${database}`
    const sql = await openPostgres(url.toString(), { max: 1 })
    cleanups.push(() => sql.close())
    const pets = new PostgresPetStore(sql)
    expect(await pets.create({ name: 'Rex', categoryId: 1 })).toMatchObject({ kind: 'created' })
    expect(await pets.inventory()).toEqual({ available: 1, pending: 0, sold: 0 })
  })

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
    ).toEqual(postgresMigrations.map((migration) => migration.version))
    expect(await migratePostgres(sql!, postgresMigrations)).toEqual([])
  })

  test('a version-1.1 database is upgraded without loss, its new counts matching the pets', async () => {
    const [old] = await version11Database(1)
    // Pets as 1.1's store inserted them.
    const statuses = ['available', 'pending', 'sold', 'sold'] as const
    for (let i = 0; i < 40; i++)
      await old`INSERT INTO pets (name, category_id, status) VALUES (${`p${i}`}, ${i + 1}, ${statuses[i % 4]!})`
    const pets = await old`SELECT * FROM pets ORDER BY id`
    expect(await migratePostgres(old, postgresMigrations)).toEqual([5, 6, 7])
    expect(await old`SELECT * FROM pets ORDER BY id`).toEqual(pets)
    expect(await new PostgresPetStore(old).inventory()).toEqual({ available: 10, pending: 10, sold: 20 })
  })

  test('the upgrade counts a pet an instance still on 1.1 writes meanwhile (a rolling upgrade)', async () => {
    const [upgrading, running] = await version11Database(2)
    await upgrading`INSERT INTO pets (name, category_id, status) VALUES ('Rex', 1, 'available')`
    // The 1.1 instance's create is in flight when the upgrade starts, and commits while it runs.
    let commit = () => {}
    const created = running!.begin(async (tx) => {
      await tx`INSERT INTO pets (name, category_id, status) VALUES ('Tom', 2, 'sold')`
      await new Promise<void>((resolve) => (commit = resolve))
    })
    // The upgrade starts once the create holds its lock on pets.
    const creating = async () =>
      (
        await upgrading`SELECT count(*)::int AS n FROM pg_locks WHERE mode = 'RowExclusiveLock' AND relation = 'pets'::regclass`
      )[0].n > 0
    while (!(await creating())) await Bun.sleep(5)
    const upgraded = migratePostgres(upgrading, postgresMigrations)
    await Bun.sleep(200)
    commit()
    await created
    expect(await upgraded).toEqual([5, 6, 7])
    expect(await new PostgresPetStore(upgrading).inventory()).toEqual({ available: 1, pending: 0, sold: 1 })
  })

  test('status changes in opposite directions at once never deadlock on the counts, which stay exact', async () => {
    // Ten connections, so the changes really run at once; pets 16 apart share one row of counts per status.
    const schema = uniqueName('test')
    const pool = await openPostgres(TEST_DATABASE_URL!, { schema, max: 10 })
    cleanups.push(() => dropSchema(schema))
    cleanups.push(() => pool.close())
    const pets = new PostgresPetStore(pool)
    const ids: number[] = []
    for (let i = 0; i < 32 * 16; i++) {
      const created = await pets.create({ name: `pet ${i}`, categoryId: 1 })
      if (created.kind === 'created' && created.pet.id % 16 === 0) ids.push(created.pet.id)
    }
    // Half of them pending first, so each round moves half one way and half the other.
    for (const id of ids.slice(0, 16)) await pets.update(id, { status: 'pending' })
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.all(
        ids.map((id, i) => pets.update(id, { status: (i + round) % 2 === 0 ? 'pending' : 'available' })),
      )
      expect(outcomes.every((outcome) => outcome.kind === 'updated')).toBe(true)
    }
    const [{ pending }] = await pool`SELECT count(*)::int AS pending FROM pets WHERE status = 'pending'`
    expect(await pets.inventory()).toEqual({ available: 32 * 16 - pending, pending, sold: 0 })
  })

  test('refuses a database from a newer build, naming both versions', async () => {
    const [sql] = await postgresPools(1, cleanups)
    const newer = postgresMigrations.length + 1
    await sql!`INSERT INTO schema_migrations (version, name) VALUES (${newer}, 'from a newer build')`
    await expect(migratePostgres(sql!, postgresMigrations)).rejects.toThrow(
      `schema version ${newer}, newer than this build's ${postgresMigrations.length}`,
    )
  })

  test('ids are BIGINT in the table and numbers in JSON, exact up to 2^53 - 1', async () => {
    const [sql] = await postgresPools(1, cleanups)
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
