import { afterEach, describe, expect, test } from 'bun:test'
import { createApp } from '../../src/app'
import { openPostgres } from '../../src/db/postgres'
import { issueKey } from '../../src/keys/issue'
import { PostgresKeyStore } from '../../src/keys/postgres_store'
import { createLogger } from '../../src/log'
import { PostgresOrderStore } from '../../src/orders/postgres_store'
import { PostgresPetStore } from '../../src/pets/postgres_store'
import { BASE, describeEachStore, json, makeTestApp, UNLIMITED } from '../helpers'
import { postgresTestStores, SHARED_STORES, TEST_DATABASE_URL } from '../shared_services'

type Call = (method: string, path: string, body?: unknown) => Promise<Response>

/** 50 orders for pet 1 at once, sent by turns through `calls`: exactly one placed, the pet pending, one order. */
async function expectOneOf50(calls: Call[]) {
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) => calls[i % calls.length]!('POST', '/v1/store/orders', { petId: 1 })),
  )
  const statuses = answers.map((answer) => answer.status)
  expect(statuses.filter((status) => status === 201)).toHaveLength(1)
  expect(statuses.filter((status) => status === 409)).toHaveLength(49)
  for (const answer of answers.filter((answer) => answer.status === 409))
    expect((await json(answer)).code).toBe('pet_not_available')
  for (const call of calls) {
    expect((await json(await call('GET', '/v1/pets/1'))).status).toBe('pending')
    expect(await json(await call('GET', '/v1/store/orders'))).toHaveLength(1)
    expect(await json(await call('GET', '/v1/store/inventory'))).toEqual({ available: 0, pending: 1, sold: 0 })
  }
}

describeEachStore('concurrent orders for one pet', () => {
  test('of 50 at once in one process, exactly one is placed; the rest are 409 pet_not_available', async () => {
    const { call } = await makeTestApp()
    await call('POST', '/v1/pets', { body: { name: 'Contested', categoryId: 1 } })
    await expectOneOf50([(method, path, body) => call(method, path, { body })])
  })

  test('of 50 deliveries and cancellations of one order at once, exactly one ends it; the pet follows it', async () => {
    const { call } = await makeTestApp()
    await call('POST', '/v1/pets', { body: { name: 'Contested', categoryId: 1 } })
    await call('POST', '/v1/store/orders', { body: { petId: 1 } })
    const etag = (await call('GET', '/v1/store/orders/1')).headers.get('etag') as string
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('PATCH', '/v1/store/orders/1', {
          body: { status: i % 2 === 0 ? 'delivered' : 'cancelled' },
          headers: { 'if-match': etag },
        }),
      ),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412)).toHaveLength(49)
    const ended = await json(answers[statuses.indexOf(200)]!)
    const pet = await json(await call('GET', '/v1/pets/1'))
    expect(pet.status).toBe(ended.status === 'delivered' ? 'sold' : 'available')
  })
})

describe.skipIf(!SHARED_STORES)('concurrent orders on two PostgreSQL instances', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  test('of 50 at once, half through each instance (each its own pool), exactly one is placed', async () => {
    const first = await postgresTestStores()
    cleanups.push(first.cleanup)
    const { secret } = await issueKey(first.keys, UNLIMITED)
    // The second instance: its own pool on the same schema, opened once the key exists.
    const sql = await openPostgres(TEST_DATABASE_URL!, { schema: first.schema, max: 4 })
    const keys = await PostgresKeyStore.open(sql)
    cleanups.push(async () => {
      keys.close()
      await sql.close()
    })
    const logger = createLogger('silent')
    const apps = [
      createApp({ pets: first.pets, orders: first.orders, keys: first.keys, logger }),
      createApp({ pets: new PostgresPetStore(sql), orders: new PostgresOrderStore(sql), keys, logger }),
    ]
    const calls: Call[] = apps.map((app) => (method, path, body) => {
      const headers: Record<string, string> = { authorization: `Bearer ${secret}` }
      if (body !== undefined) headers['content-type'] = 'application/json'
      return app.handle(
        new Request(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
      )
    })
    expect((await calls[1]!('POST', '/v1/pets', { name: 'Contested', categoryId: 1 })).status).toBe(201)
    await expectOneOf50(calls)
  })
})
