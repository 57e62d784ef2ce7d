import { afterEach, describe, expect, test } from 'bun:test'
import { SNAPSHOT_INTERVAL_MS } from '../../src/ratelimit/snapshot'
import { MINUTE_MS } from '../../src/time'
import { type FreshServer, type ServerProcess, startFreshServer, startServer } from './process_helpers'

/** Waits, if needed, until at least `seconds` of the current minute are left, so a test stays in one window. */
async function withinOneMinute(seconds: number): Promise<void> {
  const left = MINUTE_MS - (Date.now() % MINUTE_MS)
  if (left < seconds * 1000) await Bun.sleep(left + 50)
}

let fresh: FreshServer | undefined
// Every server a test starts again on the fresh one's database, stopped by PID after it.
const restarted: ServerProcess[] = []
afterEach(async () => {
  for (const server of restarted.splice(0)) if (server.proc.exitCode === null) await server.stop()
  await fresh?.cleanup()
  fresh = undefined
})

/** `serve` again on the database of the fresh server. */
async function restart(db: string): Promise<ServerProcess> {
  const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
  restarted.push(server)
  return server
}

describe('the in-memory limiter across a restart', () => {
  async function spend(url: string, key: string, count: number): Promise<void> {
    for (let i = 0; i < count; i++)
      expect((await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
  }

  async function quota(url: string, key: string) {
    const response = await fetch(`${url}/v1/rate_limit`, { headers: { authorization: `Bearer ${key}` } })
    return (await response.json()) as { minute: { used: number }; day: { used: number }; bannedUntil: number | null }
  }

  test('a Free key that spent 40 before a SIGTERM has 20 left after the restart', async () => {
    await withinOneMinute(25)
    fresh = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-restart-')
    await spend(fresh.server.url, fresh.key, 40)
    expect(await fresh.server.stop()).toBe(0)
    const again = await restart(fresh.db)
    const after = await fetch(`${again.url}/v1/pets`, { headers: { authorization: `Bearer ${fresh.key}` } })
    expect(after.headers.get('x-ratelimit-remaining')).toBe('19')
    expect((await quota(again.url, fresh.key)).day.used).toBe(41)
  }, 90_000)

  test('after kill -9 it forgets at most the requests of the last snapshot interval', async () => {
    await withinOneMinute(30)
    fresh = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-restart-')
    await spend(fresh.server.url, fresh.key, 30)
    await Bun.sleep(SNAPSHOT_INTERVAL_MS + 500)
    await spend(fresh.server.url, fresh.key, 5)
    fresh.server.proc.kill('SIGKILL')
    await fresh.server.proc.exited
    const again = await restart(fresh.db)
    const { minute } = await quota(again.url, fresh.key)
    expect(minute.used).toBeGreaterThanOrEqual(30)
    expect(minute.used).toBeLessThanOrEqual(35)
  }, 90_000)

  test('a ban survives a restart', async () => {
    await withinOneMinute(25)
    fresh = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-restart-')
    const { url } = fresh.server
    const statuses = await Promise.all(
      Array.from({ length: 130 }, async () => {
        const response = await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${fresh!.key}` } })
        await response.arrayBuffer()
        return response.status
      }),
    )
    expect(statuses.filter((status) => status === 200).length).toBe(60)
    expect(await fresh.server.stop()).toBe(0)
    const again = await restart(fresh.db)
    expect((await quota(again.url, fresh.key)).bannedUntil).toBeGreaterThan(Date.now() / 1000)
    const refused = await fetch(`${again.url}/v1/pets`, { headers: { authorization: `Bearer ${fresh.key}` } })
    expect(((await refused.json()) as { code: string }).code).toBe('key_banned')
  }, 90_000)
})
