import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SQL } from 'bun'
import { cleanupsAfterEach, eventually, tempDir } from '../helpers'
import { parseExposition } from '../metrics/exposition'
import { deleteRedisKeys, SHARED_STORES, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../shared_services'
import { printedKey, runCli, type ServerProcess, startServer } from './process_helpers'

const cleanups = cleanupsAfterEach()

async function serve(env: Record<string, string>): Promise<{ server: ServerProcess; admin: string; key: string }> {
  const { dir, cleanup } = tempDir()
  cleanups.push(cleanup)
  const database: Record<string, string> =
    env.DATABASE_URL === undefined ? { DATABASE_PATH: join(dir, 'store.sqlite') } : {}
  const server = await startServer({ ...database, ADMIN_PORT: '0', ...env })
  cleanups.push(() => server.stop())
  // Printed right after the "listening" line startServer waits for, maybe in a later chunk of stderr.
  const announced = () => /Admin listener on (http:\/\/[\d.]+:\d+)/.exec(server.stderr())
  await eventually(async () => announced() !== null, true, 5000)
  const admin = announced()
  if (admin === null) throw new Error(`no admin listener in:\n${server.stderr()}`)
  return { server, admin: admin[1]!, key: printedKey(server.stderr()) }
}

describe('the admin listener (ADMIN_PORT)', () => {
  test.skipIf(!SHARED_STORES)('counts the page cache shared by instances too, on PostgreSQL with Redis', async () => {
    const database = uniqueName('admin')
    const prefix = uniqueName('admin')
    const owner = new SQL(TEST_DATABASE_URL!, { max: 1 })
    await owner`CREATE DATABASE ${owner(database)}`
    cleanups.push(async () => {
      await owner`DROP DATABASE IF EXISTS ${owner(database)} WITH (FORCE)`
      await owner.close()
      await deleteRedisKeys(prefix)
    })
    const url = new URL(TEST_DATABASE_URL!)
    url.pathname = `/${database}`
    const { server, admin, key } = await serve({
      DATABASE_URL: url.toString(),
      REDIS_URL: TEST_REDIS_URL!,
      REDIS_KEY_PREFIX: prefix,
    })
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    const samples = parseExposition(await (await fetch(`${admin}/metrics`)).text())
    expect(samples.get('animal_store_page_cache_requests_total{result="miss"}')).toBe(1)
    expect(samples.get('animal_store_page_cache_requests_total{result="hit"}')).toBe(2)
  })

  test('serves /metrics and /health apart from the public port, which has neither /metrics nor anything new', async () => {
    const { server, admin, key } = await serve({})
    const headers = { authorization: `Bearer ${key}` }
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/v1/pets`, { headers })).status).toBe(200)
    expect((await fetch(`${server.url}/v1/pets`)).status).toBe(401)
    const scraped = await fetch(`${admin}/metrics`)
    expect(scraped.status).toBe(200)
    expect(scraped.headers.get('content-type')).toStartWith('text/plain; version=0.0.4')
    const samples = parseExposition(await scraped.text())
    expect(samples.get('animal_store_http_requests_total{operation="listPets",status="200"}')).toBe(3)
    expect(samples.get('animal_store_http_requests_total{operation="listPets",status="401"}')).toBe(1)
    expect(samples.get('animal_store_page_cache_requests_total{result="hit"}')).toBe(2)
    expect(samples.get('animal_store_rate_limit_subjects{kind="key"}')).toBe(1)
    expect(samples.get('process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(await (await fetch(`${admin}/health`)).json()).toEqual({ status: 'ok' })
    expect((await fetch(`${admin}/health/live`)).status).toBe(200)
    expect((await fetch(`${admin}/health/ready`)).status).toBe(200)
    // Any other path or method is the API's JSON Error.
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['POST', '/metrics'],
      ['GET', '/v1/pets'],
    ]) {
      const missing = await fetch(`${admin}${path}`, { method })
      expect({ method, path, status: missing.status, type: missing.headers.get('content-type') }).toEqual({
        method,
        path,
        status: 404,
        type: expect.stringMatching(/^application\/json/),
      })
      expect(await missing.json()).toEqual({
        code: 'not_found',
        message: 'The admin listener serves GET /metrics, GET /health, GET /health/live and GET /health/ready only',
        status: 404,
      })
    }
    // Nothing of the admin listener is on the public port.
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404)
    // The scrape itself is not counted as an API request.
    const again = parseExposition(await (await fetch(`${admin}/metrics`)).text())
    expect(again.get('animal_store_http_requests_total{operation="listPets",status="200"}')).toBe(3)
  })

  test('with REDIS_URL down (open mode) counts what the fallback counted and says Redis is down', async () => {
    const { server, admin, key } = await serve({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_FAILURE_MODE: 'open' })
    for (let i = 0; i < 2; i++)
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    const samples = parseExposition(await (await fetch(`${admin}/metrics`)).text())
    expect(samples.get('animal_store_rate_limit_fallback_requests_total')).toBe(2)
    expect(samples.get('animal_store_redis_up')).toBe(0)
  })

  test('a bad ADMIN_PORT or ADMIN_HOST, or a port in use, stops the start with exit 2 naming it', async () => {
    const { dir, cleanup } = tempDir()
    cleanups.push(cleanup)
    const db = join(dir, 'store.sqlite')
    for (const [env, message] of [
      [{ ADMIN_PORT: 'x' }, /^Configuration error: ADMIN_PORT: must be an integer from 0 to 65535/m],
      [{ ADMIN_PORT: '4000', PORT: '4000' }, /^Configuration error: ADMIN_PORT: must differ from PORT/m],
      [
        { ADMIN_PORT: '0', ADMIN_HOST: '10.255.255.1' },
        /^Configuration error: ADMIN_HOST: cannot listen on "10.255.255.1"/m,
      ],
    ] as const) {
      const result = await runCli(['serve'], { DATABASE_PATH: db, PORT: '0', HOST: '127.0.0.1', ...env })
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(message) })
    }
    const busy = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
    try {
      const result = await runCli(['serve'], {
        DATABASE_PATH: db,
        PORT: '0',
        HOST: '127.0.0.1',
        ADMIN_PORT: String(busy.port),
      })
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/ADMIN_PORT: port \d+ on 127.0.0.1 is already in use/)
    } finally {
      busy.stop(true)
    }
  })
})
