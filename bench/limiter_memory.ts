// Memory of the in-memory rate limiter: a thousand client addresses, then a
// million distinct ones (a flood), then the windows passing. Prints RSS and live heap after a full GC at each step.
//
//   bun bench/limiter_memory.ts [--subjects 1000000]
import { heapStats } from 'bun:jsc'
import { parseArgs } from 'node:util'
import { MemoryRateLimiter } from '../src/ratelimit/memory_limiter'
import { addressSubject } from '../src/ratelimit/subject'
import { DAY_MS } from '../src/ratelimit/windows'

const { values } = parseArgs({ options: { subjects: { type: 'string', default: '1000000' } } })
const many = Number(values.subjects)
const free = { rpm: 60, rpd: 1000 }
const day = Date.UTC(2026, 10, 21)

function report(step: string, limiter: MemoryRateLimiter): void {
  Bun.gc(true)
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1).padStart(7)
  console.log(
    `${step.padEnd(52)} rss ${mb(process.memoryUsage().rss)} MB  heap ${mb(heapStats().heapSize)} MB  ${JSON.stringify(limiter.sizes())}`,
  )
}

const limiter = new MemoryRateLimiter()
report('empty', limiter)
for (let i = 0; i < 1000; i++) limiter.consume(addressSubject(`10.0.${i >> 8}.${i & 255}`), free, day + 10_000)
report('1,000 subjects in the current minute and day', limiter)
for (let i = 0; i < many; i++)
  limiter.consume(
    addressSubject(`${(i >>> 24) & 255}.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`),
    free,
    day + 20_000 + (i % 30_000),
  )
report(`${many.toLocaleString('en')} subjects in the same minute`, limiter)
limiter.consume(addressSubject('192.0.2.1'), free, day + 60_000)
report('the next minute (the day still holds them)', limiter)
for (let i = 0; i < 1000; i++) limiter.consume(addressSubject(`10.0.${i >> 8}.${i & 255}`), free, day + DAY_MS + 10_000)
report('the next UTC day, 1,000 subjects again', limiter)
