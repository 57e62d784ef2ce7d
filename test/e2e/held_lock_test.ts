import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { WRITE_LOCK_DEADLINE_MS } from '../../src/db/group_commit'
import { cleanupsAfterEach, json } from '../helpers'
import { postPet, startFreshServer } from './process_helpers'

const cleanups = cleanupsAfterEach()

/** Another process's hold on the write lock: `sqlite3`'s BEGIN IMMEDIATE, say, or a backup tool. */
function holdWriteLock(path: string): { release(): void } {
  const other = new Database(path)
  // Waits its turn, as such a tool does: the server may be writing at that moment (the key's last use, after a create).
  other.exec('PRAGMA busy_timeout = 5000')
  other.exec('BEGIN IMMEDIATE')
  return {
    release() {
      other.exec('COMMIT')
      other.close()
    },
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

describe('a write lock held by another process', () => {
  test('reads and /health keep answering at once while a create waits for the lock, which then commits', async () => {
    const fresh = await startFreshServer({ LOG_LEVEL: 'warn' })
    cleanups.push(() => fresh.cleanup())
    const { server, key } = fresh
    const headers = { authorization: `Bearer ${key}` }
    expect((await postPet(server.url, key, { name: 'Rex', categoryId: 1 })).status).toBe(201)
    const lock = holdWriteLock(fresh.db)
    try {
      const waiting = postPet(server.url, key, { name: 'Tom', categoryId: 1 })
      await Bun.sleep(200)
      // A generous bound: with the lock waited for on the event loop, each of these took the whole 5 s busy timeout.
      const read = await timed(() => fetch(`${server.url}/v1/pets?after=0&limit=5&status=available`, { headers }))
      const health = await timed(() => fetch(`${server.url}/health`))
      expect(read.value.status).toBe(200)
      expect(health.value.status).toBe(200)
      expect(read.ms).toBeLessThan(1000)
      expect(health.ms).toBeLessThan(1000)
      lock.release()
      const created = await waiting
      expect(created.status).toBe(201)
      expect((await json(created)).name).toBe('Tom')
    } finally {
      try {
        lock.release()
      } catch {}
    }
  }, 30_000)

  test(
    'a lock that does not clear within the deadline: the create is refused 503 storage_unavailable, nothing written',
    async () => {
      const fresh = await startFreshServer({ LOG_LEVEL: 'warn' })
      cleanups.push(() => fresh.cleanup())
      const { server, key } = fresh
      const lock = holdWriteLock(fresh.db)
      let refused: Response
      try {
        refused = await postPet(server.url, key, { name: 'Tom', categoryId: 1 })
      } finally {
        lock.release()
      }
      expect(refused.status).toBe(503)
      expect(await json(refused)).toMatchObject({ code: 'storage_unavailable' })
      expect(refused.headers.get('retry-after')).toBe('5')
      const db = new Database(join(fresh.dir, 'store.sqlite'), { readonly: true })
      expect(db.query('SELECT count(*) AS n FROM pets').get()).toEqual({ n: 0 })
      db.close()
      expect((await postPet(server.url, key, { name: 'Tom', categoryId: 1 })).status).toBe(201)
    },
    WRITE_LOCK_DEADLINE_MS + 20_000,
  )
})
