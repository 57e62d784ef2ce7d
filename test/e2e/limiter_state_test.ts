import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SNAPSHOT_INTERVAL_MS } from '../../src/ratelimit/snapshot'
import { DAY_MS } from '../../src/time'
import { cleanupsAfterEach, tempDir } from '../helpers'
import { printedKey, runCli, type ServerProcess, startServer } from './process_helpers'

const cleanups = cleanupsAfterEach()
const servers: ServerProcess[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) if (server.proc.exitCode === null) await server.stop()
})

async function serve(db: string): Promise<ServerProcess> {
  const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
  servers.push(server)
  return server
}

/** Callers without a key that flooded_limiter_state.ts saves, 127.0.0.1 among them with its day used up. */
const CALLERS = 1_000_000

/** Subjects held in the database's snapshots. */
function heldSubjects(path: string): number {
  const db = new Database(path, { readonly: true })
  try {
    return db.query<{ n: number }, []>('SELECT sum(length(counters)) / 16 AS n FROM limiter_parts').get()!.n
  } finally {
    db.close()
  }
}

describe('the limiter state of a million callers without a key', () => {
  test('is read back after the start and written every 5 s, while /health, probed every 10 ms, never waits long', async () => {
    // Far from midnight, so the seeded day is the server's day.
    if (DAY_MS - (Date.now() % DAY_MS) < 60_000) await Bun.sleep(DAY_MS - (Date.now() % DAY_MS) + 100)
    const { dir, cleanup } = tempDir('animal-store-flood-state-')
    cleanups.push(cleanup)
    const path = join(dir, 'store.sqlite')
    // Seeded in a process of its own, so that this one's heap stays small and its pauses are not measured as the server's.
    const seeded = Bun.spawnSync(
      [process.execPath, `${import.meta.dir}/flooded_limiter_state.ts`, path, String(CALLERS)],
      {
        stderr: 'pipe',
      },
    )
    expect(seeded.stderr.toString()).toBe('')
    const server = await serve(path)
    const key = printedKey(server.stderr())
    const latencies: number[] = []
    const until = performance.now() + 2 * SNAPSHOT_INTERVAL_MS + 1500
    let counted = 0
    while (performance.now() < until) {
      const started = performance.now()
      expect((await fetch(`${server.url}/health`)).status).toBe(200)
      latencies.push(performance.now() - started)
      // A counted request now and then, so that the limiter changes and is written again.
      if (latencies.length % 200 === 1) {
        const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
        expect(response.status).toBe(200)
        counted++
      }
      await Bun.sleep(10)
    }
    // The seeded state was read back: 127.0.0.1 spent its day before this process started.
    const anonymous = await fetch(`${server.url}/v1/pets`)
    expect(anonymous.status).toBe(429)
    expect(anonymous.headers.get('x-ratelimit-resource')).toBe('day')
    expect(counted).toBeGreaterThanOrEqual(2)
    // The running server wrote its own snapshot, of what it took over (ANON_SUBJECTS_MAX, a million, holds
    // about that many: a shard that overflows forgets its older half) and of what came since.
    expect(await server.stop()).toBe(0)
    expect(heldSubjects(path)).toBeGreaterThan(0.9 * CALLERS)
    expect(heldSubjects(path)).toBeLessThanOrEqual(CALLERS + 1)
    const sorted = [...latencies].sort((a, b) => a - b)
    const worst = sorted.at(-1)!
    const secondWorst = sorted.at(-2)!
    const p99 = sorted[Math.floor(sorted.length * 0.99)]!
    console.log(
      `/health during the read back and two writes of ${CALLERS.toLocaleString('en')} callers: ${latencies.length} probes, ` +
        `median ${sorted[sorted.length >> 1]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
        `second-worst ${secondWorst.toFixed(1)} ms, worst ${worst.toFixed(1)} ms`,
    )
    // Written in parts of a few milliseconds each (whole, the write alone paused the event loop for 0.12 to 0.16 s),
    // and read back in slices. The bounds are on the 99th percentile (the 11th-worst of about 1,050 probes) and
    // the second-worst: the housekeeping runs three times here (a read back, two writes), so a pause of its own
    // shows at least twice, while one probe alone can meet a pause of this shared machine's (35 ms once in CI,
    // and once 768 ms with p99 4.0). With every table hashing alike, the read back gave p99 33 to 55 ms and worst
    // 76 to 90; now p99 3.5 to 4.3 ms.
    expect(p99).toBeLessThan(20)
    expect(secondWorst).toBeLessThan(80)
  }, 90_000)
})

describe('two serve processes on one SQLite file', () => {
  test('keep what each counted: after both stop, a new start holds both keys’ counts', async () => {
    const { dir, cleanup } = tempDir('animal-store-two-limiters-')
    cleanups.push(cleanup)
    const path = join(dir, 'store.sqlite')
    const first = await serve(path)
    const firstKey = printedKey(first.stderr())
    const created = await runCli(['keys', 'create', '--plan', 'free', '--json', '--db', path])
    const secondKey = (JSON.parse(created.stdout) as { key: string }).key
    const second = await serve(path)
    const spend = async (url: string, key: string, count: number) => {
      for (let i = 0; i < count; i++)
        expect((await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    }
    await spend(first.url, firstKey, 30)
    await spend(second.url, secondKey, 20)
    expect(await first.stop()).toBe(0)
    expect(await second.stop()).toBe(0)
    const again = await serve(path)
    const used = async (key: string) => {
      const response = await fetch(`${again.url}/v1/rate_limit`, { headers: { authorization: `Bearer ${key}` } })
      return ((await response.json()) as { day: { used: number } }).day.used
    }
    expect(await used(firstKey)).toBe(30)
    expect(await used(secondKey)).toBe(20)
  }, 60_000)
})
