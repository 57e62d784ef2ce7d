import { describe, expect, test } from 'bun:test'
import { createApp } from '../../src/app'
import { sqliteStores } from '../../src/backends'
import { openDatabase } from '../../src/db/sqlite'
import { issueKey } from '../../src/keys/issue'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import { createLogger } from '../../src/log'
import { MINUTE_MS } from '../../src/time'

interface Sample {
  window: number
  status: number
  remaining: number
}

describe('rate limits under load, over a real port', () => {
  test('no key gets more than its plan in a window, and Remaining never goes up within one', async () => {
    // The clock is the test's: two minute windows, one after the other.
    let now = Date.UTC(2026, 10, 21, 9, 0, 0)
    const db = openDatabase(':memory:')
    const keys = new SqliteKeyStore(db)
    const { pets, orders } = sqliteStores(db)
    const app = createApp({ pets, orders, keys, logger: createLogger('silent'), clock: () => now })
    const plans = [7, 13, 25, 40, 60, 90, 120, 200].map((rpm, i) => ({ rpm, rpd: 100_000, name: `load ${i}` }))
    const issued = await Promise.all(plans.map((plan) => issueKey(keys, { ...plan, plan: 'enterprise' })))
    app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    const url = `http://127.0.0.1:${app.server!.port}/v1/pets`
    try {
      // Each key has four clients sending back to back; each client sees its own answers in order.
      const perClient: { keyIndex: number; samples: Sample[] }[] = []
      const client = async (keyIndex: number, requests: number) => {
        const samples: Sample[] = []
        perClient.push({ keyIndex, samples })
        for (let i = 0; i < requests; i++) {
          const window = Math.floor(now / MINUTE_MS)
          const response = await fetch(url, { headers: { authorization: `Bearer ${issued[keyIndex]!.secret}` } })
          await response.arrayBuffer()
          samples.push({
            window,
            status: response.status,
            remaining: Number(response.headers.get('x-ratelimit-remaining')),
          })
        }
      }
      const firstWindow = Promise.all(issued.flatMap((_, k) => Array.from({ length: 4 }, () => client(k, 60))))
      await firstWindow
      // Hammering far past the limit banned every key for 15 minutes; the second window starts after that.
      now += 16 * MINUTE_MS
      await Promise.all(issued.flatMap((_, k) => Array.from({ length: 4 }, () => client(k, 30))))

      for (const [k, plan] of plans.entries()) {
        for (const window of new Set(perClient.flatMap((c) => c.samples.map((s) => s.window)))) {
          const sent = perClient
            .filter((c) => c.keyIndex === k)
            .flatMap((c) => c.samples.filter((s) => s.window === window))
          const answered = sent.filter((s) => s.status !== 429).length
          // Never more than the plan; and exactly the plan's worth when more was asked.
          expect({ key: k, window, answered }).toEqual({ key: k, window, answered: Math.min(plan.rpm, sent.length) })
        }
      }
      for (const { samples } of perClient) {
        for (let i = 1; i < samples.length; i++) {
          if (samples[i]!.window === samples[i - 1]!.window)
            expect(samples[i]!.remaining).toBeLessThanOrEqual(samples[i - 1]!.remaining)
        }
      }
    } finally {
      await app.stop()
    }
  }, 60_000)
})
