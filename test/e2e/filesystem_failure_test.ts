import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { json } from '../helpers'
import { postPet, printedKey, runCli, startServer } from './process_helpers'
import { requireInCi, run, undoAfterEach } from './system_commands'

/** Whether this machine lets the test loop-mount an ext4 image (root, loop devices, e2fsprogs: as in CI). */
function canLoopMount(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-loop-probe-'))
  try {
    run(['truncate', '-s', '8M', join(dir, 'image')])
    run(['mkfs.ext4', '-q', '-F', join(dir, 'image')])
    mkdirSync(join(dir, 'mnt'))
    run(['mount', '-o', 'loop', join(dir, 'image'), join(dir, 'mnt')])
    run(['umount', join(dir, 'mnt')])
    return true
  } catch {
    return false
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const LOOP = requireInCi(canLoopMount(), 'loop-mount an ext4 image (root, loop devices, e2fsprogs)')

const undo = undoAfterEach()

/**
 * A 64 MiB ext4 image loop-mounted with `errors=remount-ro` for one test, and
 * the kernel's own error path to fail it: ext4 aborts its journal and turns
 * the filesystem read-only at once, as it does on a disk error.
 */
function ext4Image(): { image: string; mnt: string; failFilesystem(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-fsfail-'))
  undo.push(() => rmSync(dir, { recursive: true, force: true }))
  const image = join(dir, 'image')
  const mnt = join(dir, 'mnt')
  mkdirSync(mnt)
  run(['truncate', '-s', '64M', image])
  run(['mkfs.ext4', '-q', '-F', image])
  run(['mount', '-o', 'loop,errors=remount-ro', image, mnt])
  undo.push(() => Bun.spawnSync(['umount', '-l', mnt]))
  const device = basename(run(['findmnt', '-n', '-o', 'SOURCE', mnt]).trim())
  return { image, mnt, failFilesystem: () => writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, '1') }
}

/**
 * The probe issue 15 describes: pets created under load on an ext4 image that
 * the kernel forces read-only mid-run (an ext4 error with `errors=remount-ro`),
 * the server killed, the filesystem checked with e2fsck and mounted again:
 * which of the pets the server acknowledged with 201 (before the failure, and
 * after it) are missing from the database?
 */
async function acknowledgedButLost(
  env: Record<string, string>,
): Promise<{ acknowledged: number; lostBefore: number[]; lostAfter: number[] }> {
  const { image, mnt, failFilesystem } = ext4Image()
  const database = { DATABASE_PATH: join(mnt, 'store.sqlite'), ...env }
  // A key with room for the whole run (the first key the server would print is a Free one: 60 a minute).
  const made = await runCli(
    ['keys', 'create', '--plan', 'enterprise', '--rpm', '1000000', '--rpd', '100000000'],
    database,
  )
  expect(made.code).toBe(0)
  const key = made.stdout.trim()
  const server = await startServer({ ...database, LOG_LEVEL: 'error' })
  undo.push(() => (server.proc.exitCode === null ? server.proc.kill('SIGKILL') : undefined))
  const acknowledged: number[] = []
  let writing = true
  const writer = async (n: number) => {
    for (let i = 0; writing; i++) {
      const response = await postPet(server.url, key, { name: `pet ${n}-${i}`, categoryId: 1 }).catch(() => undefined)
      if (response?.status === 201) acknowledged.push((await json(response)).id)
      else await response?.arrayBuffer()
    }
  }
  const writers = Array.from({ length: 20 }, (_, n) => writer(n))
  while (acknowledged.length < 300) await Bun.sleep(5)
  // The kernel's own error path: ext4 turns the filesystem read-only at once.
  const beforeFailure = acknowledged.length
  failFilesystem()
  await Bun.sleep(300)
  writing = false
  await Promise.all(writers)
  server.proc.kill('SIGKILL')
  await server.proc.exited
  run(['umount', mnt])
  Bun.spawnSync(['e2fsck', '-fy', image])
  run(['mount', '-o', 'loop', image, mnt])
  const db = new Database(join(mnt, 'store.sqlite'))
  const kept = new Set((db.query('SELECT id FROM pets').all() as { id: number }[]).map((row) => row.id))
  db.close()
  const lost = (ids: number[]) => ids.filter((id) => !kept.has(id))
  return {
    acknowledged: acknowledged.length,
    lostBefore: lost(acknowledged.slice(0, beforeFailure)),
    lostAfter: lost(acknowledged.slice(beforeFailure)),
  }
}

describe.skipIf(!LOOP)('a filesystem that fails under load', () => {
  // What the service can promise: every pet acknowledged before the failure is kept (with
  // SQLITE_SYNCHRONOUS=normal the same probe lost every one of them). Commits acknowledged in the
  // kernel's error window itself (fsync reporting success while ext4 aborts its journal) were lost
  // in 6 of 18 runs here (2 to 19 pets): no database can keep what the kernel drops after saying it
  // was written. They are printed, not asserted.
  test('with the default durability (SQLITE_SYNCHRONOUS=full) no pet acknowledged before the failure is lost', async () => {
    const { acknowledged, lostBefore, lostAfter } = await acknowledgedButLost({})
    expect(acknowledged).toBeGreaterThanOrEqual(300)
    expect(lostBefore).toEqual([])
    if (lostAfter.length > 0)
      console.warn(`filesystem failure: ${lostAfter.length} pets acknowledged in the kernel's error window were lost`)
  }, 120_000)
})

describe.skipIf(!LOOP)('a filesystem that turns read-only while serving', () => {
  test('creates get 503 storage_unavailable with Retry-After, /health 503, one log line; reads go on', async () => {
    const { mnt, failFilesystem } = ext4Image()
    const server = await startServer({ DATABASE_PATH: join(mnt, 'store.sqlite'), LOG_LEVEL: 'warn' })
    undo.push(() => (server.proc.exitCode === null ? server.proc.kill('SIGKILL') : undefined))
    const key = printedKey(server.stderr())
    const kept = await json(await postPet(server.url, key, { name: 'Rex', categoryId: 1 }))
    failFilesystem()
    const statuses: number[] = []
    let refused: Response | undefined
    for (let i = 0; i < 5; i++) {
      const response = await postPet(server.url, key, { name: `after ${i}`, categoryId: 1 })
      statuses.push(response.status)
      refused = response
    }
    expect(statuses).toEqual([503, 503, 503, 503, 503])
    expect(await json(refused!)).toMatchObject({ code: 'storage_unavailable', status: 503 })
    expect(refused!.headers.get('retry-after')).toBe('5')
    expect(refused!.headers.get('x-ratelimit-limit')).not.toBeNull()
    expect((await fetch(`${server.url}/health`)).status).toBe(503)
    const read = await fetch(`${server.url}/v1/pets/${kept.id}`, { headers: { authorization: `Bearer ${key}` } })
    expect(read.status).toBe(200)
    server.proc.kill('SIGKILL')
    await server.proc.exited
    const text = await new Response(server.proc.stdout as ReadableStream).text()
    const faults = text.split('\n').filter((line) => line.includes('database fault'))
    expect(faults).toHaveLength(1)
    expect(JSON.parse(faults[0]!)).toMatchObject({
      level: 'warn',
      fault: expect.stringMatching(/^SQLITE_(READONLY|IOERR)/),
    })
  }, 60_000)
})
