import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { KEY_CHANGE_SEEN_WITHIN_MS } from '../../src/keys/store'
import { eventually } from '../helpers'
import { deleteRedisKeys, SHARED_STORES, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../shared_services'
import { postPet, runCli, type ServerProcess, startServer } from './process_helpers'

/**
 * Three `serve` processes on their own ports, sharing one PostgreSQL
 * database (fresh for this file) and one Redis, as behind a load balancer.
 */
describe.skipIf(!SHARED_STORES)('three instances sharing PostgreSQL and Redis', () => {
  const database = uniqueName('scale')
  const prefix = uniqueName('scale')
  let env: Record<string, string>
  let servers: ServerProcess[] = []
  let admin: SQL

  /** `keys …` against the shared database, as an operator would run it; returns the parsed --json line. */
  async function keys(...args: string[]) {
    const result = await runCli(['keys', ...args, '--json'], env)
    expect(result.code).toBe(0)
    return JSON.parse(result.stdout) as { id: number; key?: string }
  }

  /** A new key, once every instance knows it: key changes reach them within a second (see the last test). */
  async function newKey(plan: string, name: string) {
    const created = await keys('create', '--plan', plan, '--name', name)
    await Bun.sleep(1000)
    return { id: created.id, key: created.key! }
  }

  const get = (server: ServerProcess, path: string, key: string) =>
    fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })

  // Hooks of a skipped block would be reported as skipped "(unnamed)" tests, inflating the count.
  if (SHARED_STORES)
    beforeAll(async () => {
      admin = new SQL(TEST_DATABASE_URL!, { max: 1 })
      await admin`CREATE DATABASE ${admin(database)}`
      const url = new URL(TEST_DATABASE_URL!)
      url.pathname = `/${database}`
      env = { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'warn' }
      // The first creates the schema; the other two find it migrated.
      servers = await Promise.all([1, 2, 3].map(() => startServer(env)))
    })

  test('instances started together on an empty database make one first key between them', async () => {
    const printed = servers.filter((server) => /shown only this once/.test(server.stderr()))
    expect(printed.length).toBe(1)
    expect((await runCli(['keys', 'list', '--json'], env)).stdout).toContain('"first key"')
  })

  if (SHARED_STORES)
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()))
      await admin`DROP DATABASE IF EXISTS ${admin(database)} WITH (FORCE)`
      await admin.close()
      await deleteRedisKeys(prefix)
    })

  test('one Free key gets exactly 60 answers in a minute in total, spread over all three', async () => {
    const { key } = await newKey('free', 'spread')
    const responses = await Promise.all(Array.from({ length: 120 }, (_, i) => get(servers[i % 3]!, '/v1/pets', key)))
    // Grouped by the minute each answer counted in (its X-RateLimit-Reset), should the burst straddle two.
    const byWindow = new Map<string, { sent: number; answered: number }>()
    for (const response of responses) {
      const window = byWindow.get(response.headers.get('x-ratelimit-reset')!) ?? { sent: 0, answered: 0 }
      window.sent++
      if (response.status === 200) window.answered++
      else expect(response.status).toBe(429)
      byWindow.set(response.headers.get('x-ratelimit-reset')!, window)
    }
    for (const { sent, answered } of byWindow.values()) expect(answered).toBe(Math.min(60, sent))
    if (byWindow.size === 1) expect(responses.filter((r) => r.status === 200).length).toBe(60)
    // Each instance got 40 requests, fewer than 60: counted per instance, all 120 would have been answered.
  })

  test('a pet created on one instance is listed and found by the others', async () => {
    const { key } = await newKey('pro', 'pets')
    const created = await postPet(servers[0]!.url, key, { name: 'Shared', categoryId: 3 })
    expect(created.status).toBe(201)
    const pet = (await created.json()) as { id: number }
    for (const server of servers.slice(1)) {
      const listed = (await (await get(server, '/v1/pets?limit=100', key)).json()) as unknown[]
      expect(listed).toContainEqual({ id: pet.id, name: 'Shared', categoryId: 3, status: 'available' })
      expect((await get(server, `/v1/pets/${pet.id}`, key)).status).toBe(200)
    }
  })

  test(`set-plan and revoke by the CLI reach every instance within ${KEY_CHANGE_SEEN_WITHIN_MS} ms`, async () => {
    const { id, key } = await newKey('pro', 'changing')
    const limits = () =>
      Promise.all(servers.map(async (server) => (await get(server, '/v1/pets', key)).headers.get('x-ratelimit-limit')))
    expect(await limits()).toEqual(['300', '300', '300'])

    // Each change is polled for from the moment the CLI has made it until the deadline the requirement names.
    await keys('set-plan', String(id), '--plan', 'business')
    expect(await eventually(async () => (await limits()).join(), '1000,1000,1000', KEY_CHANGE_SEEN_WITHIN_MS)).toBe(
      '1000,1000,1000',
    )

    await keys('revoke', String(id))
    const statuses = async () =>
      (await Promise.all(servers.map(async (server) => (await get(server, '/v1/pets', key)).status))).join()
    expect(await eventually(statuses, '401,401,401', KEY_CHANGE_SEEN_WITHIN_MS)).toBe('401,401,401')
  })
})
