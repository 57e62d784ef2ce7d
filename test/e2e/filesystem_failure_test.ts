import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { json } from '../helpers'
import { postPet, runCli, startServer } from './process_helpers'
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
 * The probe issue 15 describes: pets created under load on an ext4 image that
 * the kernel forces read-only mid-run (an ext4 error with `errors=remount-ro`),
 * the server killed, the filesystem checked with e2fsck and mounted again:
 * which of the pets the server acknowledged with 201 (before the failure, and
 * after it) are missing from the database?
 */
async function acknowledgedButLost(
  env: Record<string, string>,
): Promise<{ acknowledged: number; lostBefore: number[]; lostAfter: number[] }> {
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
  writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, '1')
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
