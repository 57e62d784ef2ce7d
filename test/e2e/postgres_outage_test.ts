import { afterAll, describe, expect, test } from 'bun:test'
import { CLIENT_DEADLINE_MS, HEALTH_DEADLINE_MS } from '../../src/db/postgres'
import { eventually } from '../helpers'
import { SHARED_STORES, startPrivatePostgres } from '../shared_services'
import { printedKey, type ServerProcess, startServer } from './process_helpers'

const cleanups: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
}, 30_000)

describe.skipIf(!SHARED_STORES)('a serve process whose PostgreSQL goes away', () => {
  test('answers 503 unavailable while it is down, and serves again once it is back, without a restart', async () => {
    const postgres = await startPrivatePostgres()
    cleanups.push(postgres.cleanup)
    const server: ServerProcess = await startServer({ DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' })
    cleanups.push(() => server.stop())
    const key = printedKey(server.stderr())
    const get = (path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
    expect((await get('/v1/pets')).status).toBe(200)

    postgres.stop()
    const during = await get('/v1/pets')
    expect(during.status).toBe(503)
    expect(during.headers.get('retry-after')).toBe('1')
    // Our own 503 costs no quota: as many left as after the first request.
    expect(during.headers.get('x-ratelimit-remaining')).toBe('59')
    expect(await during.json()).toEqual({
      code: 'unavailable',
      message: 'The database does not answer; retry shortly',
      status: 503,
    })
    expect((await get('/health')).status).toBe(503)

    postgres.start()
    expect(await eventually(async () => (await get('/v1/pets')).status, 200, 5000)).toBe(200)
    const created = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"name":"Back","categoryId":1}',
    })
    expect(created.status).toBe(201)
    expect((await get('/health')).status).toBe(200)
  }, 60_000)
})

describe.skipIf(!SHARED_STORES)('a serve process whose PostgreSQL hangs (SIGSTOP, issue 31)', () => {
  test('answers 503 within the deadline and /health within its bound, then serves again once it thaws', async () => {
    const postgres = await startPrivatePostgres()
    cleanups.push(postgres.cleanup)
    const server: ServerProcess = await startServer({ DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' })
    cleanups.push(() => server.stop())
    const key = printedKey(server.stderr())
    const headers = { authorization: `Bearer ${key}` }
    const timed = async (path: string, init: RequestInit = {}) => {
      const started = performance.now()
      const response = await fetch(`${server.url}${path}`, { ...init, headers: { ...headers, ...init.headers } })
      await response.arrayBuffer()
      return {
        status: response.status,
        ms: performance.now() - started,
        retryAfter: response.headers.get('retry-after'),
      }
    }
    expect((await timed('/v1/pets')).status).toBe(200)
    const json = { 'content-type': 'application/json' }
    const created = await timed('/v1/pets', { method: 'POST', headers: json, body: '{"name":"Rex","categoryId":1}' })
    expect(created.status).toBe(201)
    postgres.pause()
    let resumed = false
    cleanups.push(async () => {
      if (!resumed) postgres.resume()
    })
    try {
      // Writes too: a change of the pet and an order for it, each answered 503.
      const [list, health, changed, ordered] = await Promise.all([
        timed('/v1/pets'),
        timed('/health'),
        timed('/v1/pets/1', { method: 'PATCH', headers: json, body: '{"name":"Frozen"}' }),
        timed('/v1/store/orders', { method: 'POST', headers: json, body: '{"petId":1}' }),
      ])
      expect([changed.status, ordered.status]).toEqual([503, 503])
      expect(health.status).toBe(503)
      expect(health.ms).toBeLessThan(HEALTH_DEADLINE_MS + 500)
      expect(list).toMatchObject({ status: 503, retryAfter: '1' })
      expect(list.ms).toBeGreaterThanOrEqual(CLIENT_DEADLINE_MS - 100)
      expect(list.ms).toBeLessThan(CLIENT_DEADLINE_MS + 1500)
    } finally {
      postgres.resume()
      resumed = true
    }
    expect(await eventually(async () => (await timed('/v1/pets')).status, 200, 10_000)).toBe(200)
    expect(await eventually(async () => (await timed('/health')).status, 200, 10_000)).toBe(200)
    // The writes answered 503 ran when PostgreSQL thawed, and were rolled back, not committed.
    await Bun.sleep(1000)
    const pet = await fetch(`${server.url}/v1/pets/1`, { headers })
    expect(await pet.json()).toMatchObject({ name: 'Rex', status: 'available' })
    const orders = await fetch(`${server.url}/v1/store/orders`, { headers })
    expect(await orders.json()).toEqual([])
  }, 60_000)
})
