import { describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { cleanupsAfterEach } from '../helpers'
import { SHARED_STORES, startPrivateRedis } from '../shared_services'
import { startFreshServer } from './process_helpers'

const cleanups = cleanupsAfterEach()

/** `count` requests without a key, each from its own address (X-Forwarded-For, TRUST_PROXY=on), 100 at a time. */
async function flood(url: string, first: number, count: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>()
  for (let sent = 0; sent < count; sent += 100)
    await Promise.all(
      Array.from({ length: Math.min(100, count - sent) }, async (_, i) => {
        const n = first + sent + i
        const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
        const response = await fetch(`${url}/v1/pets`, { headers: { 'x-forwarded-for': address } })
        await response.arrayBuffer()
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      }),
    )
  return statuses
}

const usedMemory = async (redis: RedisClient) =>
  Number(/used_memory:(\d+)/.exec((await redis.send('INFO', ['memory'])) as string)![1])

describe.skipIf(!SHARED_STORES)('a flood of distinct callers without a key, against Redis', () => {
  test('leaves at most ANON_SUBJECTS_MAX of them in Redis, so a Redis with little headroom keeps counting every key', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(redis.stop)
    const fresh = await startFreshServer({
      REDIS_URL: redis.url,
      REDIS_FAILURE_MODE: 'closed',
      TRUST_PROXY: 'on',
      ANON_SUBJECTS_MAX: '1000',
      LOG_LEVEL: 'warn',
    })
    cleanups.push(fresh.cleanup)
    const admin = new RedisClient(redis.url)
    cleanups.push(() => admin.close())
    const keyed = () => fetch(`${fresh.server.url}/v1/pets`, { headers: { authorization: `Bearer ${fresh.key}` } })

    expect(await flood(fresh.server.url, 0, 5000)).toEqual(new Map([[401, 5000]]))
    // What outlives the minute: the day's hashes, about a thousand callers in all (the key's own keys beside them).
    const keys = (await admin.send('KEYS', ['*'])) as string[]
    const dayHashes = keys.filter((key) => key.includes('{anonymous}:d:'))
    let held = 0
    for (const key of dayHashes) held += Number(await admin.send('HLEN', [key]))
    expect(held).toBeGreaterThanOrEqual(500)
    expect(held).toBeLessThanOrEqual(1000)
    expect(keys.length).toBeLessThan(20)

    // Now a Redis with 2 MB of headroom and no eviction, and four times as many new callers (about 131 bytes
    // each before the bound: 2.6 MB).
    await admin.send('CONFIG', ['SET', 'maxmemory-policy', 'noeviction'])
    await admin.send('CONFIG', ['SET', 'maxmemory', String((await usedMemory(admin)) + 2 * 1024 * 1024)])
    const statuses = await flood(fresh.server.url, 5000, 20_000)
    expect(statuses).toEqual(new Map([[401, 20_000]]))
    const response = await keyed()
    expect(response.status).toBe(200)
    expect(await (await fetch(`${fresh.server.url}/health`)).json()).toEqual({ status: 'ok' })
  }, 120_000)
})
