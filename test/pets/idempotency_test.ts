import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { sqliteStores } from '../../src/backends'
import { openDatabase } from '../../src/db/sqlite'
import { issueKey } from '../../src/keys/issue'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import { createLogger } from '../../src/log'
import { IDEMPOTENCY_TTL_MS } from '../../src/pets/idempotency'
import { BASE, describeEachStore, expectError, json, makeTestApp, tempDir, UNLIMITED } from '../helpers'

const rex = { name: 'Rex', categoryId: 7 }

async function clockedApp() {
  let now = Date.UTC(2026, 10, 21, 12)
  const made = await makeTestApp({ clock: () => now })
  const create = (key: string | undefined, body: unknown = rex, bearer?: string) =>
    made.call('POST', '/v1/pets', {
      body,
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      ...(bearer ? { key: bearer } : {}),
    })
  const count = async () => (await made.pets.list({ limit: 100 })).pets.length
  return { ...made, create, count, advance: (ms: number) => (now += ms) }
}

describeEachStore('Idempotency-Key on POST /v1/pets', () => {
  test('an Idempotency-Key shaped like an API key is refused with 400, never stored or echoed', async () => {
    const { create, count, secret, query } = await clockedApp()
    for (const value of [secret, `retry-${secret}`]) {
      const response = await create(value)
      const body = await expectError(response, 400, 'invalid_request')
      expect(body.message).toContain('looks like an API key')
      expect(JSON.stringify(body)).not.toContain(secret)
    }
    expect(await count()).toBe(0)
    expect(JSON.stringify(await query('SELECT * FROM idempotency_keys'))).not.toContain(secret)
  })

  test('a retry with the same key and body replays the first 201 and creates nothing', async () => {
    const { create, count } = await clockedApp()
    const first = await create('order-1')
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await create('order-1')
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(await json(again)).toEqual(await json(first))
    expect(await count()).toBe(1)
  })

  test('the same values in another key order or spacing are the same body', async () => {
    const { create, count } = await clockedApp()
    await create('k', rex)
    const reordered = await create('k', '{ "categoryId": 7,   "name": "Rex" }')
    expect(reordered.headers.get('idempotent-replayed')).toBe('true')
    expect(await count()).toBe(1)
  })

  test('the default status spelt out, or left out, is the same body: the create as stored is compared', async () => {
    const { create, count } = await clockedApp()
    await create('k', '{"name": "Rex", "categoryId": 7}')
    const spelt = await create('k', '{"name": "Rex", "categoryId": 7, "status": "available"}')
    expect(spelt.status).toBe(201)
    expect(spelt.headers.get('idempotent-replayed')).toBe('true')
    const other = await create('k', '{"name": "Rex", "categoryId": 7, "status": "sold"}')
    expect(other.status).toBe(422)
    expect(await count()).toBe(1)
  })

  test('the same key with a different body is 422 idempotency_key_reused and creates nothing', async () => {
    const { create, count } = await clockedApp()
    await create('k', rex)
    await expectError(await create('k', { ...rex, name: 'Max' }), 422, 'idempotency_key_reused')
    await expectError(await create('k', { ...rex, status: 'pending' }), 422, 'idempotency_key_reused')
    expect(await count()).toBe(1)
  })

  test('concurrent requests with one key create one pet', async () => {
    const { create, count } = await clockedApp()
    const responses = await Promise.all(Array.from({ length: 25 }, () => create('same')))
    expect(responses.every((r) => r.status === 201)).toBe(true)
    expect(new Set(await Promise.all(responses.map(async (r) => (await json(r)).id))).size).toBe(1)
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1)
    expect(await count()).toBe(1)
  })

  test('keys are scoped per API key', async () => {
    const { create, count, keys } = await clockedApp()
    const other = await issueKey(keys, { ...UNLIMITED, name: 'other' })
    await create('shared')
    const theirs = await create('shared', rex, other.secret)
    expect(theirs.headers.get('idempotent-replayed')).toBeNull()
    expect(await count()).toBe(2)
  })

  test('a key is forgotten after 24 hours', async () => {
    const { create, count, advance } = await clockedApp()
    await create('daily')
    advance(IDEMPOTENCY_TTL_MS - 1)
    expect((await create('daily')).headers.get('idempotent-replayed')).toBe('true')
    advance(1)
    const later = await create('daily', { ...rex, name: 'Max' })
    expect(later.status).toBe(201)
    expect(later.headers.get('idempotent-replayed')).toBeNull()
    expect(await count()).toBe(2)
  })

  test('expired keys are purged as new ones arrive', async () => {
    const { create, advance, query } = await clockedApp()
    for (let i = 0; i < 5; i++) await create(`old-${i}`)
    advance(IDEMPOTENCY_TTL_MS + 1)
    await create('new')
    expect(await query('SELECT key FROM idempotency_keys')).toEqual([{ key: 'new' }])
  })

  test('a request refused by validation leaves its key unused', async () => {
    const { create, count } = await clockedApp()
    await expectError(await create('fix-me', { name: '' }), 400, 'invalid_request')
    expect((await create('fix-me')).headers.get('idempotent-replayed')).toBeNull()
    expect(await count()).toBe(1)
  })

  test('creates without a key are never replayed', async () => {
    const { create, count } = await clockedApp()
    await create(undefined)
    await create(undefined)
    expect(await count()).toBe(2)
  })

  test.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
  ])('refuses a key that is %s with 400 naming the header', async (_, key) => {
    const { create, count } = await clockedApp()
    const error = await expectError(await create(key), 400, 'invalid_request')
    expect(error.message).toBe('"idempotency-key" must be a string of 1 to 255 characters of printable ASCII')
    expect(await count()).toBe(0)
  })

  test('accepts 255 printable characters, spaces included', async () => {
    const { create } = await clockedApp()
    expect((await create(`a b${'~'.repeat(252)}`)).status).toBe(201)
  })
})

describe('Idempotency-Key in SQLite', () => {
  test('survives a restart: the key is stored in SQLite', async () => {
    const workspace = tempDir('animal-store-idem-')
    try {
      const path = join(workspace.dir, 'store.sqlite')
      const start = async () => {
        const db = openDatabase(path)
        const keys = new SqliteKeyStore(db)
        const { pets, orders } = sqliteStores(db)
        return { db, keys, app: createApp({ pets, orders, keys, logger: createLogger('silent') }) }
      }
      const first = await start()
      const { secret } = await issueKey(first.keys, UNLIMITED)
      const post = (app: Awaited<ReturnType<typeof start>>['app']) =>
        app.handle(
          new Request(`${BASE}/v1/pets`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${secret}`,
              'content-type': 'application/json',
              'idempotency-key': 'restart',
            },
            body: JSON.stringify(rex),
          }),
        )
      const created = await post(first.app)
      expect(created.status).toBe(201)
      const original = await json(created)
      first.db.close()
      const second = await start()
      const replay = await post(second.app)
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
      expect(await json(replay)).toEqual(original)
      second.db.close()
    } finally {
      workspace.cleanup()
    }
  })
})
