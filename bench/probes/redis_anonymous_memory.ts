// What callers without a key leave in Redis: used_memory before and after a flood of distinct
// addresses counted by RedisRateLimiter, held whole (a cap above the flood) and under a cap of
// half the flood, with the fields the day's hashes hold. Needs a Redis of its own (its memory is
// read whole): REDIS_URL=redis://127.0.0.1:PORT bun bench/probes/redis_anonymous_memory.ts
import { RedisClient } from 'bun'
import { PLAN_LIMITS } from '../../src/keys/plans'
import { createLogger } from '../../src/log'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { RedisRateLimiter } from '../../src/ratelimit/redis_limiter'

const url = process.env.REDIS_URL
if (url === undefined) throw new Error('REDIS_URL is required (a Redis of its own)')
const FLOOD = 200_000
const admin = new RedisClient(url)
const usedMemory = async () => Number(/used_memory:(\d+)/.exec((await admin.send('INFO', ['memory'])) as string)![1])

console.log('| cap (ANON_SUBJECTS_MAX) | callers | held in the day hashes | used_memory growth | per caller sent |')
console.log('|---:|---:|---:|---:|---:|')
for (const cap of [2 * FLOOD, FLOOD / 2]) {
  await admin.send('FLUSHALL', [])
  const prefix = `probe${cap}`
  const limiter = new RedisRateLimiter({
    url,
    failureMode: 'closed',
    fallback: new MemoryRateLimiter(),
    logger: createLogger('warn'),
    prefix,
    anonymousMax: cap,
  })
  await limiter.connect()
  const before = await usedMemory()
  const now = Date.now()
  for (let first = 0; first < FLOOD; first += 500)
    await Promise.all(Array.from({ length: 500 }, (_, i) => limiter.consume(-(first + i + 1), PLAN_LIMITS.free, now)))
  // UNLINK frees a dropped generation in the background: give it a moment.
  await Bun.sleep(500)
  const grown = (await usedMemory()) - before
  let held = 0
  for (const key of (await admin.send('KEYS', [`${prefix}:{anonymous}:d:*`])) as string[])
    held += Number(await admin.send('HLEN', [key]))
  console.log(
    `| ${cap.toLocaleString('en')} | ${FLOOD.toLocaleString('en')} | ${held.toLocaleString('en')} | ${(grown / 1024 / 1024).toFixed(1)} MB | ${(grown / FLOOD).toFixed(0)} B |`,
  )
  limiter.close()
}
admin.close()
