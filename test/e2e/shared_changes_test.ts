import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SQL } from 'bun'
import { tempDir } from '../helpers'
import { driveOrdersAgainstModel } from '../orders/order_model'
import { driveAgainstModel } from '../pets/pet_model'
import { deleteRedisKeys, SHARED_STORES, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../shared_services'
import { runCli, type ServerProcess, startServer } from './process_helpers'

/**
 * Pets that change, seen through two `serve` processes that share their
 * storage: one SQLite file, or one PostgreSQL database (and one Redis).
 * Every change one acknowledges is seen by the very next read on the other,
 * and of 50 concurrent updates carrying one If-Match, split between them,
 * exactly one wins.
 */
const SETUPS: {
  name: string
  shared: boolean
  open(): Promise<{ env: Record<string, string>; close(): Promise<void> }>
}[] = [
  {
    name: 'two processes on one SQLite file',
    shared: false,
    async open() {
      const workspace = tempDir('animal-store-two-')
      return {
        env: { DATABASE_PATH: join(workspace.dir, 'store.sqlite') },
        close: async () => workspace.cleanup(),
      }
    },
  },
  {
    name: 'two instances on PostgreSQL and Redis',
    shared: true,
    async open() {
      const database = uniqueName('changes')
      const prefix = uniqueName('changes')
      const admin = new SQL(TEST_DATABASE_URL!, { max: 1 })
      await admin`CREATE DATABASE ${admin(database)}`
      const url = new URL(TEST_DATABASE_URL!)
      url.pathname = `/${database}`
      return {
        env: { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix },
        async close() {
          await admin`DROP DATABASE IF EXISTS ${admin(database)} WITH (FORCE)`
          await admin.close()
          await deleteRedisKeys(prefix)
        },
      }
    },
  },
]

for (const setup of SETUPS) {
  describe.skipIf(setup.shared && !SHARED_STORES)(setup.name, () => {
    let servers: ServerProcess[] = []
    let key = ''
    let close = async () => {}

    // Hooks of a skipped block would be reported as skipped "(unnamed)" tests, inflating the count.
    if (!setup.shared || SHARED_STORES) {
      beforeAll(async () => {
        const opened = await setup.open()
        close = opened.close
        // Links name PUBLIC_URL, the same on both, as behind one load balancer.
        const env = { ...opened.env, PUBLIC_URL: 'http://localhost', LOG_LEVEL: 'warn' }
        // Made before the servers start, so both know it at once.
        const created = await runCli(
          ['keys', 'create', '--plan', 'enterprise', '--rpm', '1000000', '--rpd', '100000000', '--json'],
          env,
        )
        expect(created.code).toBe(0)
        key = JSON.parse(created.stdout).key
        servers = [await startServer(env)]
        servers.push(await startServer(env))
      }, 60_000)
      afterAll(async () => {
        for (const server of servers) await server.stop()
        await close()
      })
    }

    const send = (
      server: ServerProcess,
      method: string,
      path: string,
      headers: Record<string, string> = {},
      body?: unknown,
    ) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          // fetch asks for compression by default; the model's tags are those of the identity form.
          'accept-encoding': 'identity',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })

    test('each answer of 1,000 random operations, sent to either process, is what a plain model says', async () => {
      let turn = 0
      const report = await driveAgainstModel(
        // Alternating, so a read nearly always follows a change the other process acknowledged.
        (method, path, headers, body) => send(servers[turn++ % 2]!, method, path, headers, body),
        { seed: 7, steps: 1000 },
      )
      expect(report.counts.update).toBeGreaterThan(100)
    }, 120_000)

    test('of 50 concurrent updates with one If-Match, half sent to each process, exactly one wins', async () => {
      const created = await send(servers[0]!, 'POST', '/v1/pets', {}, { name: 'Contested', categoryId: 1 })
      const { id } = (await created.json()) as { id: number }
      const etag = (await send(servers[1]!, 'GET', `/v1/pets/${id}`)).headers.get('etag') as string
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          send(servers[i % 2]!, 'PATCH', `/v1/pets/${id}`, { 'if-match': etag }, { name: `winner ${i}` }),
        ),
      )
      const statuses = answers.map((answer) => answer.status)
      expect(statuses.filter((status) => status === 200)).toHaveLength(1)
      expect(statuses.filter((status) => status === 412)).toHaveLength(49)
      const winner = await answers[statuses.indexOf(200)]!.json()
      for (const server of servers) expect(await (await send(server, 'GET', `/v1/pets/${id}`)).json()).toEqual(winner)
    }, 60_000)

    test('of 50 concurrent orders for one pet, half sent to each process, exactly one is placed', async () => {
      const created = await send(servers[0]!, 'POST', '/v1/pets', {}, { name: 'Wanted', categoryId: 1 })
      const { id } = (await created.json()) as { id: number }
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => send(servers[i % 2]!, 'POST', '/v1/store/orders', {}, { petId: id })),
      )
      const statuses = answers.map((answer) => answer.status)
      expect(statuses.filter((status) => status === 201)).toHaveLength(1)
      expect(statuses.filter((status) => status === 409)).toHaveLength(49)
      const order = (await answers[statuses.indexOf(201)]!.json()) as { id: number }
      for (const server of servers) {
        expect(((await (await send(server, 'GET', `/v1/pets/${id}`)).json()) as { status: string }).status).toBe(
          'pending',
        )
        const listed = (await (await send(server, 'GET', `/v1/store/orders?petId=${id}`)).json()) as { id: number }[]
        expect(listed.map((listedOrder) => listedOrder.id)).toEqual([order.id])
      }
    }, 60_000)

    test('300 random pet and order operations, sent to either process, keep every order invariant', async () => {
      let turn = 0
      const report = await driveOrdersAgainstModel(
        (method, path, headers, body) => send(servers[turn++ % 2]!, method, path, headers, body),
        { seed: 11, steps: 300 },
      )
      expect(report.invariantChecks).toBe(300)
      expect(report.counts.place).toBeGreaterThan(40)
    }, 120_000)
  })
}
