import { describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { openDatabase } from '../../src/db/sqlite'
import type { Limits } from '../../src/keys/plans'
import { createLogger } from '../../src/log'
import { SharedPageCache } from '../../src/pets/shared_page_cache'
import { SqlitePetStore } from '../../src/pets/sqlite_store'
import type { PetListQuery } from '../../src/pets/store'
import type { RedisRateLimiter } from '../../src/ratelimit/redis_limiter'
import { cleanupsAfterEach } from '../helpers'
import { redisTestLimiter, SHARED_STORES, startPrivateRedis, TEST_REDIS_URL } from '../shared_services'
import { counted } from './counted_store'

const cleanups = cleanupsAfterEach()
const unlimited: Limits = { rpm: 1e9, rpd: 1e12 }
const FIRST_PAGE: PetListQuery = { limit: 20 }

/**
 * Two instances on one store (a SQLite one stands in for PostgreSQL: the
 * cache does not care) and one Redis: each its own limiter and cache, as two
 * `serve` processes have. `read` lists as a request does: the limiter's call
 * first, its store version handed to the cache.
 */
async function twoInstances(options: { url?: string } = {}) {
  const { wrapped, counter } = counted(new SqlitePetStore(openDatabase(':memory:')))
  const logs: Record<string, unknown>[] = []
  const logger = createLogger('info', (line) => logs.push(JSON.parse(line)))
  const first = await redisTestLimiter({ timeoutMs: 300, ...options }, cleanups)
  const second = await redisTestLimiter({ timeoutMs: 300, ...options, prefix: first.prefix }, cleanups)
  const instance = (limiter: RedisRateLimiter) => {
    const cache = new SharedPageCache(wrapped, limiter, logger)
    cleanups.push(() => cache.close())
    return {
      cache,
      async read(query = FIRST_PAGE) {
        const decision = await limiter.consume(1, unlimited, Date.now())
        return cache.list(query, decision.storeVersion)
      },
    }
  }
  return {
    a: instance(first.limiter),
    b: instance(second.limiter),
    store: wrapped,
    counter,
    logs,
    prefix: first.prefix,
    /** Until the first instance's limiter answers from Redis again (a version read), after an outage. */
    async untilAsked() {
      for (let i = 0; i < 50; i++) {
        if ((await first.limiter.consume(1, unlimited, Date.now())).storeVersion !== undefined) return
        await Bun.sleep(100)
      }
      throw new Error('Redis did not answer again')
    },
  }
}

describe.skipIf(!SHARED_STORES)('SharedPageCache', () => {
  test('reads the store whenever a request read no version (no shared limiter, or Redis out of reach)', async () => {
    const { a, counter } = await twoInstances()
    await a.cache.list(FIRST_PAGE, undefined)
    await a.cache.list(FIRST_PAGE, undefined)
    expect(counter.lists).toBe(2)
  })

  test('a Redis without a version makes one: pages are kept from the first read', async () => {
    const { a, counter, prefix } = await twoInstances()
    const client = new RedisClient(TEST_REDIS_URL!)
    expect(await client.get(`${prefix}:store-version`)).toBeNull()
    const page = await a.read()
    expect(await a.read()).toBe(page)
    expect(counter.lists).toBe(1)
    expect(await client.get(`${prefix}:store-version`)).toStartWith('since ')
    client.close()
  })

  test("answers a page again while the version stands, and reads anew after another instance's write", async () => {
    const { a, b, counter } = await twoInstances()
    await b.cache.create({ name: 'Rex', categoryId: 1 })
    const page = await a.read()
    expect(await a.read()).toBe(page)
    expect(counter.lists).toBe(1)
    // A write acknowledged by the other instance: the very next read here sees it.
    await b.cache.create({ name: 'Max', categoryId: 2 })
    expect((await a.read()).pets.map((pet) => pet.name)).toEqual(['Rex', 'Max'])
    expect(counter.lists).toBe(2)
    // A later page is kept from its second read, as SQLite's cache keeps them.
    const later = { limit: 1, after: 1 }
    await a.read(later)
    const again = await a.read(later)
    expect(await a.read(later)).toBe(again)
    expect(counter.lists).toBe(4)
    expect(a.cache.lookups()).toEqual({ hits: 2, misses: 4 })
  })

  test('never answers a page read before Redis broke, even when Redis comes back with the same version', async () => {
    const redis = await startPrivateRedis()
    cleanups.push(() => redis.stop())
    const { a, b, store, counter, logs, prefix, untilAsked } = await twoInstances({ url: redis.url })
    await b.cache.create({ name: 'Rex', categoryId: 1 })
    await a.read()
    await a.read()
    expect(counter.lists).toBe(1)
    const client = new RedisClient(redis.url)
    const version = await client.get(`${prefix}:store-version`)
    client.close()
    // Redis goes away. A write meanwhile cannot be marked, and is acknowledged anyway (it committed);
    // another commits and its instance ends before it could mark it.
    await redis.stop()
    expect((await b.cache.create({ name: 'Max', categoryId: 2 })).kind).toBe('created')
    expect(logs.some((log) => String(log.msg).includes('could not be marked'))).toBe(true)
    // Until its write is marked, the instance that made it reads the store.
    await b.cache.list(FIRST_PAGE, 'any version')
    expect(counter.lists).toBe(2)
    b.cache.close()
    await store.create({ name: 'Bob', categoryId: 3 })
    // Back, as a restore from an older snapshot would bring it: with the version from before both writes.
    await redis.start()
    const restored = new RedisClient(redis.url)
    await restored.set(`${prefix}:store-version`, version!)
    restored.close()
    await untilAsked()
    expect((await a.read()).pets.map((pet) => pet.name)).toEqual(['Rex', 'Max', 'Bob'])
  })
})
