import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/sqlite'
import { closeDatabase } from '../../src/db/wal_ownership'
import { eventually, json } from '../helpers'
import { postPet, printedKey, runCli, type ServerProcess, startServer } from './process_helpers'
import { requireInCi, run, undoAfterEach } from './system_commands'

/** Whether this machine lets the test mount a small tmpfs (root in a container that allows it, as in CI). */
function canMount(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'animal-store-mount-probe-'))
  const mounted = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stderr: 'pipe' })
  if (mounted.exitCode === 0) Bun.spawnSync(['umount', probe])
  rmSync(probe, { recursive: true, force: true })
  return mounted.exitCode === 0
}

const MOUNTABLE = requireInCi(canMount(), 'mount a small tmpfs')

const undo = undoAfterEach()

/** A server whose database lives on a tmpfs of `size` made for this test. */
async function serveOnTmpfs(size: string) {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-fault-'))
  run(['mount', '-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir])
  undo.push(() => rmSync(dir, { recursive: true, force: true }))
  undo.push(() => Bun.spawnSync(['umount', '-l', dir]))
  const server = await startServer({ DATABASE_PATH: join(dir, 'store.sqlite'), LOG_LEVEL: 'warn' })
  undo.push(() => (server.proc.exitCode === null ? server.stop() : undefined))
  return { dir, server, key: printedKey(server.stderr()) }
}

/** What the server logged on stdout (JSON lines), once it has stopped. */
async function logLines(server: ServerProcess): Promise<Record<string, unknown>[]> {
  await server.stop()
  const text = await new Response(server.proc.stdout as ReadableStream).text()
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
}

const pet = (i: number) => ({ name: `Pet ${i} ${'x'.repeat(200)}`, categoryId: 1 })

describe.skipIf(!MOUNTABLE)('storage faults answer 503 storage_unavailable, and clear without a restart', () => {
  test('a full disk: creates get 503 with Retry-After and uncounted rate-limit headers, /health 503, one log line; space freed, all resumes', async () => {
    const { dir, server, key } = await serveOnTmpfs('4m')
    const acknowledged: number[] = []
    for (let i = 0; i < 5; i++) acknowledged.push((await json(await postPet(server.url, key, pet(i)))).id)
    Bun.spawnSync(['dd', 'if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=64k'], { stderr: 'ignore' })
    const statuses: number[] = []
    let refused: Response | undefined
    let remainingBefore: string | null = null
    for (let i = 5; i < 40 && refused === undefined; i++) {
      remainingBefore = (
        await fetch(`${server.url}/v1/rate_limit`, { headers: { authorization: `Bearer ${key}` } })
      ).headers.get('x-ratelimit-remaining')
      const response = await postPet(server.url, key, pet(i))
      statuses.push(response.status)
      if (response.status === 201) acknowledged.push((await json(response)).id)
      else refused = response
    }
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([])
    expect(refused?.status).toBe(503)
    expect(await json(refused!)).toMatchObject({ code: 'storage_unavailable', status: 503 })
    expect(refused!.headers.get('retry-after')).toBe('5')
    // The refused create cost no quota: the headers show what was left before it.
    expect(refused!.headers.get('x-ratelimit-remaining')).toBe(remainingBefore)
    for (let i = 0; i < 5; i++) expect((await postPet(server.url, key, pet(100 + i))).status).toBe(503)
    expect((await fetch(`${server.url}/health`)).status).toBe(503)
    expect(
      (await fetch(`${server.url}/v1/pets?limit=100`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200)

    rmSync(join(dir, 'filler'))
    const created = await postPet(server.url, key, pet(200))
    expect(created.status).toBe(201)
    acknowledged.push((await json(created)).id)
    expect(await eventually(async () => (await fetch(`${server.url}/health`)).status, 200)).toBe(200)
    const listed = await json(
      await fetch(`${server.url}/v1/pets?limit=100`, { headers: { authorization: `Bearer ${key}` } }),
    )
    expect(listed.map((p: { id: number }) => p.id)).toEqual(acknowledged)
    const faults = (await logLines(server)).filter((line) => String(line.msg).startsWith('database fault'))
    expect(faults).toHaveLength(1)
    expect(faults[0]).toMatchObject({ level: 'warn', fault: 'SQLITE_FULL' })
  }, 60_000)
})

describe('a database folder deleted while serving', () => {
  test('creates get 503 instead of 201 into a file no one can open again, and /health says 503', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-vanish-'))
    mkdirSync(join(dir, 'data'))
    undo.push(() => rmSync(dir, { recursive: true, force: true }))
    const server = await startServer({ DATABASE_PATH: join(dir, 'data', 'store.sqlite'), LOG_LEVEL: 'warn' })
    undo.push(() => (server.proc.exitCode === null ? server.stop() : undefined))
    const key = printedKey(server.stderr())
    expect((await postPet(server.url, key, pet(1))).status).toBe(201)
    rmSync(join(dir, 'data'), { recursive: true, force: true })
    const refused = await postPet(server.url, key, pet(2))
    expect(refused.status).toBe(503)
    expect((await json(refused)).code).toBe('storage_unavailable')
    expect((await fetch(`${server.url}/health`)).status).toBe(503)
  }, 30_000)
})

describe.skipIf(!MOUNTABLE)('start-up on storage it cannot write: one line naming DATABASE_PATH, exit 2', () => {
  /** A store with two pets on a tmpfs of its own, its server stopped (cleanly, or killed to leave its log). */
  async function storeOnTmpfs(stop: 'cleanly' | 'killed') {
    const { dir, server, key } = await serveOnTmpfs('4m')
    for (const name of ['Rex', 'Tom'])
      expect((await postPet(server.url, key, { name, categoryId: 1 })).status).toBe(201)
    if (stop === 'cleanly') expect(await server.stop()).toBe(0)
    else {
      server.proc.kill(9)
      await server.proc.exited
    }
    const path = join(dir, 'store.sqlite')
    const serve = () => runCli(['serve'], { DATABASE_PATH: path, PORT: '0', HOST: '127.0.0.1' })
    return { dir, path, key, serve }
  }

  test.each([
    ['stopped cleanly', 'cleanly'],
    ['killed, its log left', 'killed'],
  ] as const)(
    'a read-only mount (the last server %s): serve refuses; a command still reads',
    async (_, stop) => {
      const { dir, path, serve } = await storeOnTmpfs(stop)
      if (stop === 'killed') expect(statSync(`${path}-wal`).size).toBeGreaterThan(0)
      run(['mount', '-o', 'remount,ro', dir])
      const refused = await serve()
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim().split('\n')).toEqual([
        `Storage error: DATABASE_PATH: cannot open "${path}": attempt to write a readonly database (SQLITE_READONLY)`,
      ])
      const listed = await runCli(['keys', 'list'], { DATABASE_PATH: path })
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain('free')
    },
    30_000,
  )

  test('a full disk: serve refuses; space freed, it starts with every pet', async () => {
    const { dir, path, key, serve } = await storeOnTmpfs('cleanly')
    Bun.spawnSync(['dd', 'if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=4k'], { stderr: 'ignore' })
    const refused = await serve()
    expect(refused.code).toBe(2)
    expect(refused.stderr.trim().split('\n')).toEqual([
      `Storage error: DATABASE_PATH: cannot open "${path}": database or disk is full (SQLITE_FULL)`,
    ])
    rmSync(join(dir, 'filler'))
    const server = await startServer({ DATABASE_PATH: path, LOG_LEVEL: 'warn' })
    undo.push(() => server.stop())
    const pets = await json(await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } }))
    expect(pets.map((p: { name: string }) => p.name)).toEqual(['Rex', 'Tom'])
  }, 30_000)
})

describe('damage found while serving', () => {
  test('a page damaged under a running server: its reads get 503 storage_unavailable, never 500, and /health says 503', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-damage-'))
    undo.push(() => rmSync(dir, { recursive: true, force: true }))
    const path = join(dir, 'store.sqlite')
    const db = openDatabase(path)
    const insert = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?1, 1, ?2)')
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`pet ${i} ${'x'.repeat(40)}`, 'available')
    })()
    insert.finalize()
    closeDatabase(db)
    const server = await startServer({ DATABASE_PATH: path, LOG_LEVEL: 'warn' })
    undo.push(() => (server.proc.exitCode === null ? server.stop() : undefined))
    const key = printedKey(server.stderr())
    // The damage (a leaf page of the pets table, in the middle of them), then a write from another process, so
    // the server reads the file again instead of its page cache.
    const layout = new Database(path, { readonly: true })
    const leaves = layout
      .query<{ pageno: number }, []>(
        "SELECT pageno FROM dbstat WHERE name = 'pets' AND pagetype = 'leaf' ORDER BY pageno",
      )
      .all()
    layout.close()
    const file = openSync(path, 'r+')
    writeSync(file, Buffer.alloc(4096, 0x5a), 0, 4096, (leaves[leaves.length >> 1]!.pageno - 1) * 4096)
    closeSync(file)
    expect((await runCli(['keys', 'create', '--plan', 'free'], { DATABASE_PATH: path })).code).toBe(0)

    const statuses = new Set<number>()
    let refused: Response | undefined
    for (let after = 0; after < 3000 && refused === undefined; after += 100) {
      const response = await fetch(`${server.url}/v1/pets?limit=100&after=${after}`, {
        headers: { authorization: `Bearer ${key}` },
      })
      statuses.add(response.status)
      if (response.status !== 200) refused = response
      else await response.arrayBuffer()
    }
    expect([...statuses].filter((status) => status !== 200 && status !== 503)).toEqual([])
    expect(refused?.status).toBe(503)
    expect(await json(refused!)).toMatchObject({ code: 'storage_unavailable', status: 503 })
    expect(refused!.headers.get('retry-after')).toBe('5')
    expect((await fetch(`${server.url}/health`)).status).toBe(503)
  }, 30_000)
})
