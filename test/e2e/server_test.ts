import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { eventually, tempDir } from '../helpers'
import { type FreshServer, postPet, runCli, type ServerProcess, startFreshServer, startServer } from './process_helpers'

describe('serve over a real port', () => {
  let fresh: FreshServer
  let db: string
  let server: ServerProcess
  let key: string

  beforeAll(async () => {
    fresh = await startFreshServer({}, 'animal-store-serve-')
    ;({ server, key, db } = fresh)
  })
  // The last test restarts the server: stop whichever one is running.
  afterAll(async () => {
    if (server.proc.exitCode === null) await server.stop()
    await fresh.cleanup()
  })

  test('prints one Free key on first start, with how to make more', () => {
    expect(server.stderr()).toContain('one Free key')
    expect(server.stderr()).toContain('keys create --plan')
    expect(server.stderr().match(/ask_/g)).toHaveLength(1)
  })

  test('answers GET /v1/pets with the printed key', async () => {
    const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([])
  })

  test('creates a pet and finds it at its Location', async () => {
    const created = await postPet(server.url, key, { name: 'Rex', categoryId: 3 })
    expect(created.status).toBe(201)
    const location = created.headers.get('location')!
    expect(location).toStartWith(server.url)
    const fetched = await fetch(location, { headers: { authorization: `Bearer ${key}` } })
    expect(await fetched.json()).toEqual(await created.json())
  })

  test('answers a body over 16 KiB with the JSON 413, not a dropped connection', async () => {
    const response = await postPet(server.url, key, { name: 'x'.repeat(17 * 1024), categoryId: 1 })
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ code: 'payload_too_large', status: 413 })
  })

  test('refuses a key revoked by the CLI within one second, without a restart', async () => {
    const created = JSON.parse((await runCli(['keys', 'create', '--plan', 'free', '--json', '--db', db])).stdout)
    const status = async () =>
      (await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${created.key}` } })).status
    // A key made by another process is taken up within a second, and so is its revocation.
    expect(await eventually(status, 200)).toBe(200)
    expect((await runCli(['keys', 'revoke', String(created.id), '--db', db])).code).toBe(0)
    expect(await eventually(status, 401)).toBe(401)
  })

  test('applies a plan change made by the CLI within one second', async () => {
    const created = JSON.parse((await runCli(['keys', 'create', '--plan', 'free', '--json', '--db', db])).stdout)
    const limit = async () =>
      (await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${created.key}` } })).headers.get(
        'x-ratelimit-limit',
      )
    expect(await eventually(limit, '60')).toBe('60')
    expect((await runCli(['keys', 'set-plan', String(created.id), '--plan', 'business', '--db', db])).code).toBe(0)
    expect(await eventually(limit, '1000')).toBe('1000')
  })

  test('prints no key on a later start with the same database, only how to make one', async () => {
    await server.stop()
    server = await startServer({ DATABASE_PATH: db })
    expect(server.stderr()).not.toContain('ask_')
    expect(server.stderr()).toContain('API keys exist; to make another: npm run keys -- create')
    const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { name: string }[]).map((p) => p.name)).toEqual(['Rex'])
  })
})

describe('serve refuses a bad configuration', () => {
  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['TRUST_PROXY', 'perhaps'],
  ])('exits 2 naming %s when it is "%s"', async (variable, value) => {
    const result = await runCli(['serve'], { [variable]: value })
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain(`${variable}:`)
  })

  test('exits 2 naming PORT when the port is in use, having made no key; a start on a free port then shows one', async () => {
    const workspace = tempDir('animal-store-busy-port-')
    const holder = Bun.serve({ port: 0, hostname: '127.0.0.1', reusePort: false, fetch: () => new Response('mine') })
    try {
      const db = join(workspace.dir, 'store.sqlite')
      const env = { DATABASE_PATH: db, HOST: '127.0.0.1', PORT: String(holder.port) }
      const busy = await runCli(['serve'], env)
      expect(busy.code).toBe(2)
      expect(busy.stderr.trim().split('\n')).toEqual([
        `Configuration error: PORT: port ${holder.port} on 127.0.0.1 is already in use; stop what holds it or choose another PORT`,
      ])
      expect(JSON.parse((await runCli(['keys', 'list', '--json', '--db', db])).stdout)).toEqual([])
      const started = await startServer({ DATABASE_PATH: db })
      try {
        expect(started.stderr()).toContain('one Free key')
        expect(started.stderr().match(/ask_/g)).toHaveLength(1)
      } finally {
        await started.stop()
      }
    } finally {
      holder.stop(true)
      workspace.cleanup()
    }
  })

  test('exits 2 naming HOST when it is not an address of this machine', async () => {
    const workspace = tempDir('animal-store-bad-host-')
    try {
      const env = { DATABASE_PATH: join(workspace.dir, 'store.sqlite'), HOST: '203.0.113.9', PORT: '0' }
      const result = await runCli(['serve'], env)
      expect(result.code).toBe(2)
      expect(result.stderr.trim().split('\n')).toEqual([
        'Configuration error: HOST: cannot listen on "203.0.113.9": not an address of this machine',
      ])
    } finally {
      workspace.cleanup()
    }
  })

  test('exits 2 naming DATABASE_PATH when the database cannot be created', async () => {
    const workspace = tempDir('animal-store-bad-db-')
    try {
      // A folder cannot be made under a regular file, even by root.
      await Bun.write(join(workspace.dir, 'file'), '')
      const result = await runCli(['serve'], { DATABASE_PATH: join(workspace.dir, 'file', 'x.sqlite'), PORT: '0' })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('DATABASE_PATH:')
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
    } finally {
      workspace.cleanup()
    }
  })
})

describe('serve --db', () => {
  test('uses that SQLite file', async () => {
    const workspace = tempDir('animal-store-serve-db-')
    try {
      const path = join(workspace.dir, 'chosen.sqlite')
      const server = await startServer({}, undefined, undefined, ['--db', path])
      expect(server.stderr()).toContain(`(database ${path};`)
      expect(await server.stop()).toBe(0)
      expect(await Bun.file(path).exists()).toBe(true)
    } finally {
      workspace.cleanup()
    }
  })
})
